; Go tags for memlode. A method's receiver type is its explicit parent (read by the Go rules).

(function_declaration) @def.function
(method_declaration) @def.method
(type_spec) @def.type
(type_alias) @def.type
(interface_type (method_elem) @def.method)
(source_file (const_declaration (const_spec) @def.constant))
(source_file (var_declaration (var_spec) @def.constant))

; embedding: a struct field or interface element that is only a type
(field_declaration_list (field_declaration !name type: (type_identifier) @ref.extend))
(field_declaration_list (field_declaration !name type: (pointer_type (type_identifier) @ref.extend)))
(interface_type (type_elem (type_identifier) @ref.extend))

(call_expression function: (identifier) @ref.call)
(call_expression function: (selector_expression) @ref.call)
(composite_literal type: (type_identifier) @ref.call)
(composite_literal type: (qualified_type) @ref.call)

(parameter_declaration type: (type_identifier) @ref.use)
(parameter_declaration type: (pointer_type (type_identifier) @ref.use))
(parameter_declaration type: (qualified_type) @ref.use)
(field_declaration name: (_) type: (type_identifier) @ref.use)
(field_declaration name: (_) type: (pointer_type (type_identifier) @ref.use))

(import_declaration) @import
