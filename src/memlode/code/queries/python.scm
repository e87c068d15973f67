; Python tags for memlode. Captures: @def.<kind> on a definition, @ref.<kind> on the name a
; reference uses or on the member access holding it, @import on import statements.
; Module- and class-level assignments are candidates; the Python rules keep the constants.
; Alternatives ([a b]) rather than one pattern each: fewer patterns, a faster walk (~10%).

(class_definition) @def.class
(function_definition) @def.function
(module (expression_statement (assignment left: (identifier)) @def.constant))
(class_definition body: (block (expression_statement (assignment left: (identifier)) @def.constant)))
(module (type_alias_statement) @def.type)

; inheritance
(class_definition superclasses: (argument_list [(identifier) (attribute)] @ref.inherit))

; calls and decorators
(call function: [(identifier) (attribute)] @ref.call)
(decorator [(identifier) (attribute)] @ref.call)

; types named in annotations
(type [(identifier) (attribute)] @ref.use)

[(import_statement) (import_from_statement)] @import
