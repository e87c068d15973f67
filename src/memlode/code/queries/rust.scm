; Rust tags for memlode. An `impl` block is a scope: what it holds are methods of its type.

(struct_item) @def.class
(union_item) @def.class
(enum_item) @def.type
(enum_variant) @def.constant
(trait_item) @def.interface
(function_item) @def.function
(function_signature_item) @def.function
(const_item) @def.constant
(static_item) @def.constant
(type_item) @def.type
(mod_item body: (_)) @def.module
(macro_definition) @def.function

(impl_item) @scope.type

(impl_item trait: (type_identifier) @ref.implement)
(impl_item trait: (generic_type type: (type_identifier) @ref.implement))
(impl_item trait: (scoped_type_identifier) @ref.implement)
(trait_item bounds: (trait_bounds (type_identifier) @ref.extend))

(call_expression function: (identifier) @ref.call)
(call_expression function: (field_expression) @ref.call)
(call_expression function: (scoped_identifier) @ref.call)
(call_expression function: (generic_function function: (identifier) @ref.call))
(call_expression function: (generic_function function: (scoped_identifier) @ref.call))
(macro_invocation macro: (identifier) @ref.call)
(struct_expression name: (type_identifier) @ref.call)

(parameter type: (type_identifier) @ref.use)
(parameter type: (reference_type type: (type_identifier) @ref.use))
(function_item return_type: (type_identifier) @ref.use)
(field_declaration type: (type_identifier) @ref.use)
(type_arguments (type_identifier) @ref.use)

(use_declaration) @import
