; inherits: c
; C++ additions: classes, namespaces (scopes), methods declared in class bodies, bases.

(class_specifier name: (type_identifier) body: (_)) @def.class
(field_declaration_list (field_declaration declarator: (function_declarator)) @def.method)
(field_declaration_list (declaration declarator: (function_declarator)) @def.method)
(alias_declaration) @def.type
(namespace_definition name: (_)) @scope

(base_class_clause (type_identifier) @ref.inherit)
(base_class_clause (qualified_identifier) @ref.inherit)
(base_class_clause (template_type name: (type_identifier) @ref.inherit))

(call_expression function: (qualified_identifier) @ref.call)
(call_expression function: (template_function name: (identifier) @ref.call))
(new_expression type: (type_identifier) @ref.call)
(template_type name: (type_identifier) @ref.use)
