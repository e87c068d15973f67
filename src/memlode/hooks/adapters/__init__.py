"""Adapters: one module per assistant whose hook payloads are not Claude Code's shape.

``adapt(event, payload)`` takes memlode's event name (as registered for that client in
``memlode.hook_events.CLIENT_HOOKS``) and the client's own payload, and returns memlode's event
and the payload in Claude Code's shape (``session_id``, ``cwd``, ``prompt``, ``tool_name``
among Read/Write/Edit/Bash/Grep/Glob/WebFetch with their ``tool_input``/``tool_response``,
``last_assistant_message``…), which the handlers read; or None for an event memlode passes
over. A client one of whose events stands for several (Codex's patch of several files) also
has ``adapt_all``, which returns the list; dispatch runs the handler for each. Dispatch imports
the client's module only (import-light: stdlib, no ``re`` or ``json``
at module level where it can be helped).
"""
