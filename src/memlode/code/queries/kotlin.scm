; Kotlin tags for memlode. Names are qualified by the package; a companion object is not a
; symbol (what it holds is reached through its class: `Foo.create()`). Properties are
; candidates: the Kotlin rules keep `const val` and UPPER_CASE ones.

(class_declaration) @def.class
(object_declaration) @def.class
(function_declaration) @def.function
(type_alias) @def.type
(enum_entry) @def.constant
(source_file (property_declaration) @def.constant)
(class_body (property_declaration) @def.constant)

; supertypes: one with a constructor call is the superclass; the others are interfaces (an
; interface's supertypes are what it extends). The name is the user type's last identifier.
(class_declaration "class"
  (delegation_specifiers (delegation_specifier (constructor_invocation
    [(user_type (identifier) @ref.extend .) (user_type (identifier) @ref.extend . (type_arguments) .)]))))
(object_declaration
  (delegation_specifiers (delegation_specifier (constructor_invocation
    [(user_type (identifier) @ref.extend .) (user_type (identifier) @ref.extend . (type_arguments) .)]))))
(class_declaration "class"
  (delegation_specifiers (delegation_specifier
    [(user_type (identifier) @ref.implement .) (user_type (identifier) @ref.implement . (type_arguments) .)])))
(object_declaration
  (delegation_specifiers (delegation_specifier
    [(user_type (identifier) @ref.implement .) (user_type (identifier) @ref.implement . (type_arguments) .)])))
(class_declaration "interface"
  (delegation_specifiers (delegation_specifier
    [(user_type (identifier) @ref.extend .) (user_type (identifier) @ref.extend . (type_arguments) .)])))

(call_expression . (identifier) @ref.call)
(call_expression . (navigation_expression) @ref.call)

; types named in signatures
(parameter (user_type . (identifier) @ref.use))
(class_parameter (user_type . (identifier) @ref.use))
(function_declaration (user_type . (identifier) @ref.use))
(function_declaration (nullable_type (user_type . (identifier) @ref.use)))
(type_projection (user_type . (identifier) @ref.use))

(import) @import
