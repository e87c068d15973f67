; Java tags for memlode.

(class_declaration) @def.class
(record_declaration) @def.class
(interface_declaration) @def.interface
(annotation_type_declaration) @def.interface
(enum_declaration) @def.type
(enum_constant) @def.constant
(method_declaration) @def.method
(constructor_declaration) @def.method
(field_declaration) @def.constant
(constant_declaration) @def.constant

(superclass (type_identifier) @ref.extend)
(superclass (generic_type (type_identifier) @ref.extend))
(super_interfaces (type_list (type_identifier) @ref.implement))
(super_interfaces (type_list (generic_type (type_identifier) @ref.implement)))
(extends_interfaces (type_list (type_identifier) @ref.extend))
(extends_interfaces (type_list (generic_type (type_identifier) @ref.extend)))

(method_invocation) @ref.call
(object_creation_expression type: (type_identifier) @ref.call)
(object_creation_expression type: (generic_type (type_identifier) @ref.call))
(marker_annotation name: (identifier) @ref.use)
(annotation name: (identifier) @ref.use)

(formal_parameter type: (type_identifier) @ref.use)
(method_declaration type: (type_identifier) @ref.use)
(field_declaration type: (type_identifier) @ref.use)
(type_arguments (type_identifier) @ref.use)

(import_declaration) @import
