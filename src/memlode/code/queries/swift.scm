; Swift tags for memlode. One grammar node, class_declaration, holds classes, structs, actors,
; enums and extensions, told apart by its declaration_kind. An extension is a type scope: what
; it declares belongs to the extended type (the Swift rules let it own members of a type
; defined in another file of the module).

(class_declaration declaration_kind: ["class" "struct" "actor"]) @def.class
(class_declaration declaration_kind: "enum") @def.type
(class_declaration declaration_kind: "extension") @scope.type
(protocol_declaration) @def.interface
(typealias_declaration) @def.type
(function_declaration) @def.function
(init_declaration) @def.method
(protocol_function_declaration) @def.method
(enum_entry) @def.constant
(source_file (property_declaration) @def.constant)
(class_body (property_declaration) @def.constant)

; inheritance: a class's list names its superclass and protocols; other types conform only
(class_declaration declaration_kind: "class"
  (inheritance_specifier inherits_from: (user_type . (type_identifier) @ref.inherit)))
(class_declaration declaration_kind: ["struct" "enum" "actor" "extension"]
  (inheritance_specifier inherits_from: (user_type . (type_identifier) @ref.implement)))
(protocol_declaration
  (inheritance_specifier inherits_from: (user_type . (type_identifier) @ref.extend)))

; calls: `helper()`, `Type(...)`, `handler.handle()`, `self.pick(...)`
(call_expression . [(simple_identifier) (navigation_expression)] @ref.call)

; types named anywhere else (parameters, properties, results, generics)
(user_type . (type_identifier) @ref.use)

(import_declaration) @import
