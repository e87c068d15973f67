// memlode's plugin for OpenCode (https://opencode.ai/docs/plugins), installed by
// `memlode init --client opencode` into OpenCode's plugin folder. It hands OpenCode's events
// to memlode's hook command, as Claude Code's hooks do, and adds memlode's recalled context
// to the system prompt of the session's model requests.
//
// Each event runs `[...HOOK_COMMAND, memlodeEvent, "opencode"]` with a JSON payload on stdin:
// {hook_event_name: <OpenCode's event or hook name>, session_id, cwd, ...its useful fields};
// memlode.hooks.adapters.opencode turns it into Claude Code's shape.
//
// What OpenCode 1.18 fires, and the memlode event EVENTS should map it to:
//   event session.created                        session-start  (context kept for the session)
//   hook chat.message (the user's text parts)    prompt         (context kept for the turn)
//   hook tool.execute.after                      post-tool
//   event message.part.updated, a tool in error  post-tool-failure (a tool that threw: OpenCode
//                                                runs no tool.execute.after for it)
//   event session.idle (a turn is over)          stop           (with the turn's last text)
//   hook experimental.session.compacting         pre-compact
//   event session.compacted                      post-compact
//   event session.deleted                        session-end
// `opencode run` fires no event when it exits: a session ends with its last session.idle.
//
// Capture events are fire and forget: the payload goes to a file that becomes the child's
// stdin (nothing is lost if OpenCode exits at once, as `opencode run` does after the last
// turn), the child is detached and not waited for. session-start and prompt are read back
// (their stdout is the context to add), at most CONTEXT_TIMEOUT_MS, and only the model
// request waits for them (experimental.chat.system.transform). Nothing here throws into
// OpenCode, and nothing touches the network.
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Filled in by the installer (memlode.cli.wiring.opencode_plugin): the hook command as an
// argument list, and OpenCode's row of memlode.hook_events.CLIENT_HOOKS (OpenCode's event or
// hook name -> memlode's event). An event missing from EVENTS is not handed over.
const HOOK_COMMAND = __MEMLODE_HOOK_COMMAND__;
const EVENTS = __MEMLODE_EVENTS__;
const CLIENT = "opencode";
const CONTEXT_TIMEOUT_MS = 10000;
const MAX_OUTPUT_CHARS = 200000; // a tool's output in a payload (memlode clips it further)

let spool = null;
let counter = 0;

function payloadFile(data) {
  if (spool === null) spool = mkdtempSync(join(tmpdir(), "memlode-opencode-"));
  counter += 1;
  const path = join(spool, `${process.pid}-${counter}.json`);
  writeFileSync(path, data);
  const fd = openSync(path, "r");
  try {
    unlinkSync(path); // the open descriptor keeps the data for the child
  } catch {
    // removed when the folder is: nothing else to do
  }
  return fd;
}

// Run memlode's hook for one event. With `wantOutput`, a promise of what it printed ("" on
// any failure or after CONTEXT_TIMEOUT_MS); otherwise undefined, the child left to run.
function runHook(event, payload, cwd, wantOutput) {
  let fd = null;
  try {
    fd = payloadFile(JSON.stringify(payload));
    const child = spawn(HOOK_COMMAND[0], [...HOOK_COMMAND.slice(1), event, CLIENT], {
      cwd: cwd || process.cwd(),
      stdio: [fd, wantOutput ? "pipe" : "ignore", "ignore"],
      detached: !wantOutput,
      windowsHide: true,
    });
    child.on("error", () => {});
    if (!wantOutput) {
      child.unref();
      return undefined;
    }
    return new Promise((resolve) => {
      let out = "";
      const timer = setTimeout(() => {
        try {
          child.kill();
        } catch {}
        resolve("");
      }, CONTEXT_TIMEOUT_MS);
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk) => {
        out += chunk;
      });
      child.on("error", () => {
        clearTimeout(timer);
        resolve("");
      });
      child.on("close", () => {
        clearTimeout(timer);
        resolve(out);
      });
    });
  } catch {
    return wantOutput ? Promise.resolve("") : undefined;
  } finally {
    if (fd !== null) {
      try {
        closeSync(fd);
      } catch {}
    }
  }
}

// The additionalContext of a hook's JSON output (or its plain text).
function contextOf(output) {
  const text = (output || "").trim();
  if (!text) return "";
  try {
    const data = JSON.parse(text);
    const specific = data && data.hookSpecificOutput;
    if (specific && typeof specific.additionalContext === "string") {
      return specific.additionalContext;
    }
    return typeof data.additionalContext === "string" ? data.additionalContext : "";
  } catch {
    return text;
  }
}

// A tool's output as text: built-in tools give `output`, MCP tools `content` parts.
function outputText(output) {
  if (!output) return undefined;
  if (typeof output.output === "string") return output.output;
  if (Array.isArray(output.content)) {
    return output.content
      .filter((part) => part && part.type === "text")
      .map((part) => part.text)
      .join("\n");
  }
  return undefined;
}

function clip(value) {
  return typeof value === "string" && value.length > MAX_OUTPUT_CHARS
    ? value.slice(0, MAX_OUTPUT_CHARS)
    : value;
}

export const MemlodePlugin = async ({ directory }) => {
  const cwds = new Map(); // session id -> its directory
  const startContext = new Map(); // session id -> promise of the session-start context
  const promptContext = new Map(); // session id -> promise of the current prompt's context
  const lastText = new Map(); // session id -> the assistant's last text of the turn
  const failedCalls = new Set(); // tool calls already reported as failed

  const cwdOf = (sessionID) => cwds.get(sessionID) || directory;

  // Hand OpenCode's `name` to memlode (as EVENTS says); undefined when it is not handed over,
  // or (wantOutput) a promise of what the hook printed.
  const send = (name, sessionID, fields, wantOutput = false) => {
    const event = EVENTS[name];
    if (!event || !sessionID) return wantOutput ? Promise.resolve("") : undefined;
    const cwd = cwdOf(sessionID);
    const payload = { hook_event_name: name, session_id: sessionID, cwd, ...fields };
    return runHook(event, payload, cwd, wantOutput);
  };

  const onEvent = (event) => {
    const props = event.properties || {};
    switch (event.type) {
      case "session.created": {
        const info = props.info || {};
        const id = info.id || props.sessionID;
        if (!id) return;
        if (info.directory) cwds.set(id, info.directory);
        startContext.set(
          id,
          send(event.type, id, {
            source: "startup",
            title: info.title,
            parent_id: info.parentID,
            project_id: info.projectID,
            version: info.version,
          }, true),
        );
        return;
      }
      case "session.idle": {
        const id = props.sessionID;
        if (!id) return;
        send(event.type, id, { last_assistant_message: lastText.get(id) || "" });
        lastText.delete(id);
        return;
      }
      case "session.compacted":
        if (props.sessionID) send(event.type, props.sessionID, {});
        return;
      case "session.deleted": {
        const info = props.info || {};
        const id = info.id || props.sessionID;
        if (!id) return;
        send(event.type, id, { reason: "deleted" });
        for (const map of [cwds, startContext, promptContext, lastText]) map.delete(id);
        return;
      }
      case "message.part.updated": {
        const part = props.part || {};
        const state = part.state || {};
        if (part.type !== "tool" || state.status !== "error") return;
        if (failedCalls.has(part.callID)) return;
        failedCalls.add(part.callID);
        send(event.type, part.sessionID || props.sessionID, {
          tool: part.tool,
          call_id: part.callID,
          status: "error",
          args: state.input,
          error: clip(state.error),
          metadata: state.metadata,
        });
        return;
      }
      default:
    }
  };

  const guard =
    (fn) =>
    async (...args) => {
      try {
        return await fn(...args);
      } catch {
        return undefined;
      }
    };

  return {
    event: guard(async ({ event }) => onEvent(event || {})),

    "chat.message": guard(async (input, output) => {
      const parts = (output && output.parts) || [];
      const prompt = parts
        .filter((p) => p && p.type === "text" && !p.synthetic && !p.ignored)
        .map((p) => p.text)
        .join("\n");
      if (!prompt.trim()) return;
      promptContext.set(
        input.sessionID,
        send("chat.message", input.sessionID, {
          prompt,
          message_id: input.messageID,
          agent: input.agent,
          model: input.model,
        }, true),
      );
    }),

    "tool.execute.after": guard(async (input, output) => {
      send("tool.execute.after", input.sessionID, {
        tool: input.tool,
        call_id: input.callID,
        args: input.args,
        title: output && output.title,
        output: clip(outputText(output)),
        metadata: output && output.metadata,
      });
    }),

    "experimental.text.complete": guard(async (input, output) => {
      if (output && typeof output.text === "string" && output.text.trim()) {
        lastText.set(input.sessionID, output.text);
      }
    }),

    "experimental.session.compacting": guard(async (input) => {
      send("experimental.session.compacting", input.sessionID, {
        trigger: "auto",
      });
    }),

    "experimental.chat.system.transform": guard(async (input, output) => {
      const id = input && input.sessionID;
      if (!id || !output || !Array.isArray(output.system)) return;
      const texts = [];
      for (const pending of [startContext.get(id), promptContext.get(id)]) {
        if (pending) texts.push(contextOf(await pending));
      }
      const added = texts.filter((t) => t.trim()).join("\n\n");
      if (added) output.system.push(added);
    }),
  };
};
