; C tags for memlode (C++ inherits these). Function names come from the declarator chain,
; which the C rules walk (pointers, qualified names, operators, destructors).

(function_definition) @def.function
(struct_specifier name: (type_identifier) body: (_)) @def.class
(union_specifier name: (type_identifier) body: (_)) @def.class
(enum_specifier name: (type_identifier) body: (_)) @def.type
(enumerator) @def.constant
(type_definition declarator: (type_identifier)) @def.type
(preproc_def) @def.constant
(preproc_function_def) @def.function

(call_expression function: (identifier) @ref.call)
(call_expression function: (field_expression) @ref.call)

(parameter_declaration type: (type_identifier) @ref.use)
(parameter_declaration type: (struct_specifier name: (type_identifier) @ref.use))
(function_definition type: (type_identifier) @ref.use)
(field_declaration type: (type_identifier) @ref.use)
(declaration type: (type_identifier) @ref.use)

(preproc_include path: (string_literal)) @import
