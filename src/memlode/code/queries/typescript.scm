; inherits: ecma
; TypeScript and TSX: interfaces, types, enums, signatures, heritage clauses, type uses.

(interface_declaration) @def.interface
(type_alias_declaration) @def.type
(enum_declaration) @def.type
(enum_body (property_identifier) @def.constant)
(enum_body (enum_assignment) @def.constant)
(abstract_class_declaration) @def.class
(method_signature) @def.method
(abstract_method_signature) @def.method
(function_signature) @def.function
(internal_module) @def.module
(module) @def.module

(extends_clause value: (identifier) @ref.extend)
(extends_clause value: (member_expression) @ref.extend)
(implements_clause (type_identifier) @ref.implement)
(implements_clause (generic_type name: (type_identifier) @ref.implement))
(extends_type_clause type: (type_identifier) @ref.extend)
(extends_type_clause type: (generic_type name: (type_identifier) @ref.extend))

(type_annotation (type_identifier) @ref.use)
(generic_type name: (type_identifier) @ref.use)
(type_arguments (type_identifier) @ref.use)
