; PHP tags for memlode. Names are qualified by the file's namespace (`App\Http\`), members
; by `::`; the PHP rules read `use` statements and which methods are tests.

(class_declaration) @def.class
(interface_declaration) @def.interface
(trait_declaration) @def.interface
(enum_declaration) @def.type
(enum_case) @def.constant
(method_declaration) @def.method
(function_definition) @def.function
(const_declaration (const_element) @def.constant)

(base_clause [(name) (qualified_name)] @ref.extend)
(class_interface_clause [(name) (qualified_name)] @ref.implement)
(declaration_list (use_declaration [(name) (qualified_name)] @ref.inherit))

(function_call_expression function: [(name) (qualified_name)] @ref.call)
(member_call_expression) @ref.call
(nullsafe_member_call_expression) @ref.call
(scoped_call_expression) @ref.call
(object_creation_expression [(name) (qualified_name)] @ref.call)

(named_type [(name) (qualified_name)] @ref.use)

(namespace_use_declaration) @import
