/**
 * Divergences kept on purpose, each with its reason. A rule matches a divergence's key (and,
 * where given, its text and its `when` test), for the references it names (all when it names
 * none). Everything not matched here is reported as a divergence to fix. Rules for the older
 * era's reference (1.0.10, driven by SDK 0.2.0) give the event reference of that era as their
 * reason.
 * @module
 */
import { namesRequiredField, onlyTandemFieldsDeclared } from "./schema.mjs";

/**
 * @typedef {object} AllowRule
 * @property {string} id
 * @property {RegExp} key
 * @property {RegExp} [text]
 * @property {(divergence: import("./diff.mjs").Divergence) => boolean} [when] a further test
 * @property {string[]} [references] the reference ids it applies to (`lib/references.mjs`); all when absent
 * @property {string[]} [scenarios] the scenario ids it applies to; all when absent
 * @property {string} reason
 */

/** Today's references: the 1.0.102 CLI and the runtime bundled with SDK 1.0.x. */
const today = ["cli-1.0.102", "sdk-bundled"];
/** The older era's reference. */
const older = ["cli-1.0.10"];

/** @type {AllowRule[]} */
export const allowRules = [
  {
    id: "own-prompt",
    key: /^request\.system\.sections$/,
    reason: "Tandem's default system prompt is its own text (it does not claim to be GitHub Copilot); only its presence is compared.",
  },
  {
    id: "own-prompt-event",
    key: /^event\.field:system\.message\.content$/,
    reason: "The `system.message` event carries Tandem's own system prompt (see `own-prompt`); its presence and shape are compared, not its text.",
  },
  {
    id: "identity",
    key: /^event\.field:session\.start\.(producer|copilotVersion)$/,
    reason: "Producer name and version string name the runtime that produced the session.",
  },
  {
    id: "managed-settings",
    key: /^event\.only-ref:session\.managed_settings_(resolved|enforced)$/,
    reason: "GitHub enterprise managed settings (organisation/device policy) are a GitHub service; Tandem has none to resolve.",
  },
  {
    id: "github-mcp",
    key: /^event\.only-ref:session\.mcp_server(s_loaded|_status_changed)$/,
    reason: "The reference connects its built-in remote `github-mcp-server` (a GitHub service, 404 on the fake API); Tandem has no built-in MCP server.",
  },
  {
    id: "github-mcp-reachability",
    references: today,
    key: /^event\.field:session\.mcp_(server_status_changed(\.status)?|servers_loaded\.servers\.status)$/,
    when: (divergence) => /ref "(pending|failed)" \| tandem "connected"|only ref has error/.test(divergence.text),
    reason: "Both runtimes add GitHub's MCP server to a Copilot API session, at its first message (or when its servers are listed), not at create: the status events of both come with the first turn. The testkit serves it where Tandem reaches it (`<Copilot API>/mcp`), so Tandem's connects; the reference's attempt fails against the fake API (pending, then failed with an error). The harness decides the status, not a difference in behaviour.",
  },
  {
    id: "older-era-github-mcp-status",
    references: older,
    key: /^event\.only-tandem:session\.mcp_server_status_changed$/,
    reason: "1.0.10 sends no status event for its GitHub MCP server in these runs; Tandem announces the server as it connects, as today's references do (the event is in the event reference).",
  },
  {
    id: "sandboxed-flag",
    key: /^event\.field:tool\.execution_complete$/,
    when: (divergence) => /only tandem has (result, )?sandboxed$/.test(divergence.text),
    reason: "Tandem says on every bash completion whether it ran in its OS sandbox (false when the session has none); the references send `sandboxed` only from sandboxed sessions. Optional in the 1.0.x schema. (A rejected call's `result` beside it is `failed-call-result`'s.)",
  },
  {
    id: "tandem-mcp-status",
    key: /^event\.(only-tandem:session\.mcp_servers_loaded|field:session\.mcp_servers_loaded\.servers)$/,
    reason: "Tandem reports its own (here: empty) MCP server set once the session opens; the reference's events of this kind describe its built-in GitHub MCP server (see `github-mcp`), so the two never align.",
  },
  {
    id: "copilot-billing",
    key: /^event\.(only-ref:session\.usage_checkpoint|field:(assistant\.usage|session\.shutdown)\.(provider|modelDisplayName|quotaSnapshots|copilotUsage|accountingSnapshot|totalNanoAiu|reasoningEffort|ttftMs|interTokenLatencyMs))/,
    reason: "Premium-request accounting and quota snapshots of the GitHub Copilot service; Tandem counts tokens, not GitHub billing units.",
  },
  {
    id: "subagent-billing-initiator",
    key: /^event\.field:assistant\.usage\.initiator$/,
    text: /ref "sub-agent"/,
    reason: "`initiator` is a premium-request billing category of the Copilot service (see `copilot-billing`): Tandem reports who started the call in the session (`user`/`agent`).",
  },
  {
    id: "tool-error-text",
    key: /^(request\.message\.tool\.content|event\.field:tool\.execution_complete\.error\.message)$/,
    text: /Tool execution failed/,
    reason: "Tandem shows the model (and the event) the error the application's tool handler threw; the reference replaces it with \"Tool execution failed\". Kept on purpose (asserted by test/e2e/sdk-interop.test.ts).",
  },
  {
    id: "tool-wording",
    key: /^request\.tool-schema\.[a-z_]+\.(properties\.[A-Za-z_-]+\.)?(examples|title)$/,
    reason: "Schema annotations (examples/titles) are wording, like descriptions.",
  },
  {
    id: "sampling-params",
    key: /^request\.params\.$/,
    text: /only ref has (?:(?:temperature|top_p|frequency_penalty|presence_penalty|snippy)(?:, |$))+$/,
    reason: "Sampling parameters are left to the model's defaults (the lead's decision: optional); `snippy` is the Copilot service's public-code filter, a GitHub service setting.",
  },
  {
    id: "not-implemented-tools",
    key: /^request\.tools\.only-(ref:(semantic_code_search|skill|write_agent)|tandem:(write_bash|exit_plan_mode))$/,
    reason: "Not implemented: `semantic_code_search` (needs GitHub's code index), `write_agent` (messages to running background agents) and an always-present `skill` tool (Tandem offers `skill` only when skills are configured). Kept: `write_bash` (input to interactive commands, 1.0.10's set) and plan mode's `exit_plan_mode`.",
  },
  {
    id: "bash-commands-split",
    key: /^event\.field:permission\.requested\.permissionRequest\.commands(\.identifier|\.readOnly)?$/,
    reason: "Deliberate: the shell permission request lists every command that will run, each with its own read-only verdict; the reference sends one entry for the whole line.",
  },
  {
    id: "ui-hints",
    key: /^event\.field:assistant\.message\.toolRequests$/,
    text: /only ref has (?:(?:intentionSummary|toolTitle)(?:, |$))+$/,
    reason: "The event reference's ToolRequest has `toolCallId`, `name`, `arguments` and `type`; `intentionSummary` and `toolTitle` (a one-line summary and a title for a UI, which 1.0.10 and 1.0.102 both add) are outside it and optional in the 1.0.x schema.",
  },
  {
    id: "resume-usage",
    key: /^event\.only-tandem:session\.usage_info$/,
    reason: "Tandem reports the size of a resumed history right away (compaction's measure), so a client sees the context use before the first send; the reference waits for the next model call.",
  },
  {
    id: "failed-call-result",
    key: /^event\.field:tool\.execution_complete$/,
    text: /data\.\{keys\}: only tandem has result$/,
    reason: "A failed call keeps the text the model saw in `result.content` beside `error` (the reference sends only `error`): Tandem rebuilds a resumed conversation from the events, and `error.message` is only the short label.",
  },
  {
    id: "interrupted-call-completion",
    key: /^event\.only-tandem:tool\.execution_complete$/,
    reason: "The event reference emits `tool.execution_complete` when a tool finishes \"successfully or with an error\", its `toolCallId` matching the corresponding `tool.execution_start`: Tandem answers every started call, one an abort cut short too (success false, error code `interrupted`), so a client and a resumed conversation see every call answered. The references send nothing for the interrupted call. (In `multi-tool` the references' own order varies, see the notes.)",
  },
  {
    id: "subagent-parent-tool-call",
    key: /^event\.field:(subagent\.(selected|configured)|session\.(model_change|usage_info)|user\.message|system\.message)$/,
    text: /data\.\{keys\}: only tandem has parentToolCallId$/,
    reason: "A sub-agent's events carry `parentToolCallId` in their data (0.2.0 tells them apart by it; 1.0.x still declares it), where 1.0.102 puts an `agentId` on the envelope.",
  },

  // Today's references (1.0.102 and the runtime bundled with SDK 1.0.x): where Tandem keeps the
  // older era's behaviour; the older pair of the same run shows it identical to 1.0.10.
  {
    id: "older-shell-text",
    references: today,
    key: /^(request\.message\.tool\.content|event\.field:tool\.execution_complete\.(result\.content|result\.detailedContent))$/,
    text: /shellId: \d+ completed with exit code|ref "[^"]*" \| tandem "1\. |^[a-z._ ]*: ref "(?!1\. )[^"]*" \| tandem "1\. /,
    reason: "Tandem keeps 1.0.10's tool texts: bash's `<exited with exit code N>` marker and `view`'s numbered lines (identical in the `sdk0.2-cli1.0.10` pair); 1.0.102 writes `<shellId: N completed with exit code N>` and the raw text.",
  },
  {
    id: "older-ephemeral",
    references: today,
    key: /^event\.ephemeral:(permission|external_tool)\.(requested|completed)$/,
    reason: "Permission and external-tool events are ephemeral, as the event reference says and 1.0.10 does (identical in the `sdk0.2-cli1.0.10` pair); 1.0.102 persists them.",
  },
  {
    id: "older-schemas",
    references: today,
    key: /^request\.tool-schema\.((grep|glob|list_agents|sql|ask_user|task)\.properties|task\.properties\.(agent_type\.enum|model)|task\.required|task_complete\.required|read_agent\.properties\.since_turn\.type)$/,
    reason: "These tool parameters are 1.0.10's (identical in the `sdk0.2-cli1.0.10` pair): grep/glob `path`, `list_agents` without `scope`, `task` without `reasoning_effort`/`context_tier`/`description` required and without the research/security-review types, `read_agent.since_turn` a number; Tandem's `sql` keeps its `database`, `ask_user` its `allow_freeform`. 1.0.102 changed them.",
  },
  {
    id: "own-schema-bounds",
    references: today,
    key: /^request\.tool-schema\.(grep\.properties\.-[ABC]|web_fetch\.properties\.(max_length|start_index)|bash\.properties\.initial_wait|read_bash\.properties\.delay|write_bash\.properties\.delay|view\.properties\.view_range)(\.type)?$/,
    text: /only tandem has (minimum|exclusiveMinimum|minItems, maxItems)$|ref "number" \| tandem "integer"$/,
    reason: "Tandem's own parameter bounds: counts are integers with a minimum and `view_range` has two items, so the model's bad input is refused with a message it can act on before the tool runs. Neither reference declares them (1.0.10 and 1.0.102 say `number`, no bounds); parameter names and meaning are the same.",
  },
  {
    id: "older-cache-marks",
    references: today,
    key: /^request\.message\.(user|assistant|tool)\.message$/,
    text: /copilot_cache_control/,
    reason: "Cache marks as 1.0.10 places them (identical in the `sdk0.2-cli1.0.10` pair): the system message, the last non-user message (assistant or tool) and the last tool; 1.0.102 marks the last user/tool message instead.",
  },
  {
    id: "newer-fields",
    references: today,
    key: /^event\.(field:(user\.message|assistant\.message|assistant\.message\.toolRequests|system\.message|session\.start|session\.resume|tool\.execution_start|tool\.execution_complete|tool\.execution_complete\.toolTelemetry(\.properties|\.metrics)?|permission\.requested|permission\.requested\.permissionRequest|subagent\.started|subagent\.completed|subagent\.configured|session\.model_change|session\.shutdown(\.modelMetrics\.[\w.-]+)?)|only-ref:(model\.call_finished|assistant\.message_start))$/,
    text: /only ref has|only ref emits/,
    when: (divergence) => !namesRequiredField(divergence),
    reason: "Data fields and events 1.0.102 adds beyond the event reference, optional in the 1.0.x schema (checked field by field: a field that schema requires stays open): telemetry (`rte`, `toolTelemetry` metrics, `model.call_finished`), UI hints (`toolTitle`, `shellToolInfo`, `commandSegments`, `promptRequest`), context tiers, prompt `contentBlocks`/`metadata`, sub-agent model-selection details (`contextTier` and `reasoningEffort` on `session.model_change` and `subagent.configured`, sent as `null` by 1.0.102 when there is none).",
  },
  {
    id: "listed-fields",
    references: today,
    key: /^event\.field:(user|assistant)\.message$/,
    text: /^[a-z.]+ data\.\{keys\}: only tandem has (?:(?:outputTokens|attachments|agentMode)(?:, |$))+$/,
    reason: "Fields the event reference lists: `user.message` echoes `attachments` ([] by default) and `agentMode`, `assistant.message` carries `outputTokens`; 1.0.102 leaves them out.",
  },
  {
    id: "older-abort-notice",
    references: today,
    key: /^event\.only-tandem:(session\.info|assistant\.streaming_delta)$/,
    reason: "After `session.abort` Tandem sends `session.info {infoType:\"cancellation\"}` after the `abort`, as 1.0.10 does (identical in the `sdk0.2-cli1.0.10` abort run); 1.0.102 sends no notice (and, streaming, no `assistant.streaming_delta`). The `abort` event itself (its place and the spelling of its reason) is not allowed here: it is open.",
  },
  {
    id: "usage-telemetry",
    references: today,
    key: /^event\.field:assistant\.usage$/,
    text: /only ref has/,
    reason: "`assistant.usage` has the fields of the event reference (model, token counts, cost, duration, initiator, apiCallId, providerCallId, quotaSnapshots); 1.0.102 adds Copilot billing and transport telemetry (provider, model display name, request body sizes, latencies, credit status; see `copilot-billing`).",
  },
  {
    id: "task-signal-count",
    references: today,
    key: /^event\.only-(ref|tandem):session\.background_tasks_changed$/,
    reason: "`session.background_tasks_changed` carries no data: it tells a client to read the task list again. 1.0.102 sends it on every change of its own task bookkeeping and the number varies between its own runs (20, 23 and 24 around the same single `bash` call in three runs; 1.0.85 sends 10). Tandem sends one when a command or sub-agent starts running and one when it ends. Their number is not compared; Tandem's own are (test/e2e/reference-events.test.ts).",
  },
  {
    id: "repeated-output-chunk",
    references: today,
    key: /^event\.only-ref:tool\.execution_partial_result$/,
    reason: "Both references send the output of a short command twice, as the same chunk (`hello\\n`, then `hello\\n` again, before one `tool.execution_complete` with `hello\\n`); the event reference defines `partialOutput` as an incremental output chunk, and Tandem sends each chunk of output once, so the text a client accumulates is the command's output.",
  },
  {
    id: "one-off-shell-id",
    references: today,
    key: /^event\.field:tool\.execution_complete\.result\.contents\.shellId$/,
    text: /ref "\d+" \| tandem ""$/,
    reason: "Tandem gives an id to the shells a later call can address (`mode: \"async\"` or named by `shellId`, for read_bash/write_bash/stop_bash); a one-off command's shell is gone when its result arrives, so its `shell_exit` block names none (`\"\"`, a string as the 1.0.x schema requires). 1.0.102 and 1.0.85 number every shell they start.",
  },
  {
    id: "subagent-tool-set",
    references: today,
    key: /^event\.field:subagent\.selected\.tools$/,
    text: /ref \["grep","glob","view","bash","read_bash","stop_bash","powershell","read_powershell","stop_powershell","lsp","github-mcp-server\//,
    reason: "The explore agent's tools: both references add PowerShell tools (a Windows shell), an `lsp` tool (language servers Tandem does not run) and the tools of their built-in GitHub MCP server (see `github-mcp`); Tandem's explore agent has 1.0.10's six (grep, glob, view, bash, read_bash, stop_bash) and `list_bash`, which 1.0.102 offers its sub-agents.",
  },
  {
    id: "subagent-single-turn",
    references: today,
    key: /^event\.field:subagent\.configured\.multiTurn$/,
    text: /ref true \| tandem false$/,
    reason: "`multiTurn` says whether the sub-agent takes follow-up messages: Tandem's do not (messages to a running agent, `write_agent`, are not implemented; see `not-implemented-tools`), so it says false.",
  },
  {
    id: "turn-events-of-subagents",
    references: ["cli-1.0.102"],
    key: /^event\.field:assistant\.turn_(start|end)$/,
    text: /data\.\{keys\}: only ref has parentToolCallId$/,
    reason: "The 1.0.x types do not declare `parentToolCallId` on `assistant.turn_start`/`assistant.turn_end` (an object literal with it fails their type check, test/e2e/current-sdk-types.test.ts); Tandem names the sub-agent's run in the envelope's `agentId` there, as the runtime bundled with SDK 1.0.x does. 1.0.102 keeps the field in the data.",
  },
  {
    id: "resume-second-announcement",
    references: ["cli-1.0.102"],
    key: /^event\.only-ref:session\.(tools_updated|skills_loaded)$/,
    reason: "On resume 1.0.102 announces the tool set and the skills twice: once with `session.resume` and again after it looked at its code index (`session.indexed_search`, outside the SDK schema). Tandem, which has no code index, announces each once with `session.resume`.",
  },
  {
    id: "user-input-completion-order",
    references: ["cli-1.0.102"],
    key: /^event\.only-(ref|tandem):user_input\.completed$/,
    reason: "1.0.102 sends the ephemeral `user_input.completed` after the `ask_user` call's `tool.execution_complete` in some runs and before it in others (the order 1.0.10 and Tandem keep: the question is resolved, then the call completes).",
  },
  {
    id: "subagent-opening-order",
    references: today,
    key: /^event\.only-(ref|tandem):(subagent\.selected|subagent\.configured|session\.model_change)$/,
    reason: "The three events that open a sub-agent's conversation come in no fixed order in the references: 1.0.102 sends `subagent.selected` then `subagent.configured` in some runs and the other way round in others, and 1.0.85 sends `session.model_change` before `subagent.configured`. Tandem sends selected, configured, model_change (1.0.102's usual order); each event's data is compared where they align.",
  },
  {
    id: "task-completion-order",
    references: today,
    scenarios: ["task"],
    key: /^event\.only-(ref|tandem):(tool\.execution_complete|subagent\.completed)$/,
    reason: "1.0.102 sends the `task` call's `tool.execution_complete` after the sub-agent's `subagent.completed` in some runs and before it in others. Tandem always sends `subagent.completed` first (the sub-agent has finished), then the completion of the call that ran it.",
  },
  {
    id: "bundled-older-behaviour",
    references: ["sdk-bundled"],
    key: /^(event\.only-tandem:(abort|session\.mode_notice_delivered|session\.title_changed|session\.tools_updated)|event\.only-ref:session\.mcp_server_removed|request\.tools\.only-tandem:task_complete|request\.params\.|request\.message\.user\.content|event\.field:user\.message\.transformedContent|event\.field:subagent\.configured)$/,
    when: (divergence) =>
      /only tandem emits (abort|session\.mode_notice_delivered|session\.title_changed|session\.tools_updated)|only ref emits session\.mcp_server_removed|tool only in tandem: task_complete|params\.\{keys\}: only ref has reasoning_effort|data\.\{keys\}: only ref has reasoningEffort$|<mode_changed_notice>/.test(divergence.text),
    reason: "Where the runtime bundled with SDK 1.0.x (1.0.85) behaves as 1.0.102, today's CLI and the newest reference, no longer does, Tandem follows 1.0.102 (identical in the `sdk1.0-cli1.0.102` pair): a rejected tool call ends with `abort`; entering plan mode is told to the model in a `<mode_changed_notice>` (with `session.mode_notice_delivered`) and plan mode offers `task_complete`; a resumed session announces its tool set and title; a sub-agent's request and configuration carry no `reasoning_effort` of their own. (1.0.85 also removes its GitHub MCP server on resume, see `github-mcp`.)",
  },
  {
    id: "bundled-run-order",
    references: ["sdk-bundled"],
    key: /^event\.only-(ref|tandem):(pending_messages\.modified|user\.message|assistant\.usage|session\.usage_info|session\.resume|session\.tools_updated|external_tool\.requested|permission\.completed|session\.mode_notice_delivered|subagent\.configured|subagent\.completed)$/,
    reason: "The bundled runtime (1.0.85) orders these events differently from run to run (a `user.message`, `assistant.usage`, `session.usage_info`, `session.tools_updated`, `session.resume` or `pending_messages.modified` a place earlier or later; `external_tool.requested` before or after `permission.completed`; `session.model_change` before `subagent.configured`) and sends a second `subagent.completed` (`cancelled: true`) after the session went idle in some runs. Tandem's order is 1.0.102's (identical in the `sdk1.0-cli1.0.102` pair).",
  },
  {
    id: "own-mode-notice-wording",
    references: ["cli-1.0.102"],
    key: /^(request\.message\.user\.content|event\.field:user\.message\.transformedContent)$/,
    text: /<plan_mode>\\n[^|]*" \| tandem "[^"]*<plan_mode>\\n/,
    reason: "The notice of entering plan mode is the runtime's own prompt text (see `own-prompt`): Tandem writes a `<mode_changed_notice>` with a `<plan_mode>` block in its own words, where 1.0.102 writes its own; the blocks, their place and the `[[PLAN]]` mark are compared.",
  },
  {
    id: "bundled-skills-at-resume",
    references: ["sdk-bundled"],
    scenarios: ["resume"],
    key: /^event\.only-tandem:session\.skills_loaded$/,
    reason: "The bundled runtime (1.0.85) announces the skill set when a session opens and, in some of its runs, not again at resume; 1.0.102 and Tandem announce it at resume.",
  },
  {
    id: "bundled-skills-at-start",
    references: ["sdk-bundled"],
    key: /^event\.only-ref:session\.skills_loaded$/,
    reason: "The runtime bundled with SDK 1.0.x (1.0.85) announces the (empty) skill set when a session opens; 1.0.102 no longer does, nor does Tandem (it sends `session.skills_loaded` at resume).",
  },
  {
    id: "bundled-shutdown",
    references: ["sdk-bundled"],
    key: /^event\.only-tandem:session\.shutdown$/,
    reason: "The bundled runtime (1.0.85) delivers `session.shutdown` to the disconnecting client in some runs and not in others (a race in its teardown); 1.0.102 always delivers it, as Tandem does.",
  },

  // The older era (SDK 0.2.0 with 1.0.10): reasons from the event reference of that era.
  {
    id: "older-era-today-fields",
    references: older,
    key: /^event\.field:[a-z_.]+$/,
    when: (divergence) => onlyTandemFieldsDeclared(divergence, "sdk-1.0"),
    reason: "The event reference gives each event's data as a table of mostly optional fields and has clients read the fields they need (\"only the fields listed … are populated\"; the rest stay unset). Tandem sends every client one event shape, today's: these optional fields are declared for the same event by the 1.0.x schema (checked field by field); 1.0.10 leaves them out and a 0.2.0 client ignores what it does not read.",
  },
  {
    id: "older-era-tagged-files-entry",
    references: older,
    key: /^event\.field:user\.message\.attachments$/,
    text: /^user\.message data\.attachments\[\d+\]\{keys\}: only tandem has taggedFilesEntry$/,
    reason: "The event reference lists `attachments` on `user.message` as the file, directory, selection, blob or GitHub attachments, and has clients read the fields they need. Tandem keeps on a file or directory attachment the `<tagged_files>` line the model read (`taggedFilesEntry`, declared optional by the 1.0.x schema and sent by 1.0.102 and 1.0.85), so a resumed session sends the model the same text, whatever happened to the file since. 1.0.10 echoes the attachment as given; a 0.2.0 client ignores the field.",
  },
  {
    id: "older-era-resume-title-order",
    references: older,
    key: /^event\.only-(ref|tandem):session\.title_changed$/,
    when: (divergence) => divergence.text.endsWith("(eph)"),
    reason: "1.0.10 announces a resumed session's title (ephemeral `session.title_changed`) right after the `session.resume` answer, as its recorded event sequence shows and Tandem does, or, in some runs, only after the next turn went idle: the same event, a race in its order.",
  },
  {
    id: "older-era-listed-events",
    references: older,
    key: /^event\.only-tandem:(session\.title_changed|system\.message|session\.shutdown|external_tool\.completed|tool\.execution_partial_result)$/,
    reason: "The event reference lists these events: `session.title_changed` (the session's auto-generated title was updated), `system.message` (a system or developer prompt was injected into the conversation), `session.shutdown` (the session has ended), `external_tool.completed` (an external tool request was resolved, also when the tool failed), `tool.execution_partial_result` (incremental output from a running tool, such as bash output). 1.0.10 does not send them to a 0.2.0 client in these scenarios; Tandem does, as today's references do.",
  },
  {
    id: "older-era-optional-result",
    references: older,
    key: /^event\.field:tool\.execution_complete(\.result)?$/,
    text: /data\.\{keys\}: only ref has toolTelemetry$|data\.result\{keys\}: only tandem has contents$/,
    reason: "The event reference marks both optional on `tool.execution_complete`: `toolTelemetry` (tool-specific telemetry, which Tandem does not send for every tool) and the result's `contents` (structured content blocks, which Tandem sends for bash as a `shell_exit` block).",
  },
  {
    id: "older-era-streaming-progress",
    references: older,
    key: /^event\.only-(tandem|ref):assistant\.streaming_delta$/,
    reason: "The event reference calls `assistant.streaming_delta` a low-level network progress indicator (total bytes received so far): how many there are depends on how the response's bytes arrive, not on the protocol.",
  },
  {
    id: "older-era-own-schema-bounds",
    references: older,
    key: /^request\.tool-schema\.(grep\.properties\.-[ABC]|web_fetch\.properties\.(max_length|start_index)|bash\.properties\.initial_wait|read_bash\.properties\.delay|write_bash\.properties\.delay|view\.properties\.view_range)(\.type)?$/,
    text: /only tandem has (minimum|exclusiveMinimum|minItems, maxItems)$|ref "number" \| tandem "integer"$/,
    reason: "The event reference describes the session's events, not the tools' parameter schemas, which are each runtime's own: these are Tandem's own bounds (counts are integers with a minimum, `view_range` has two items), so the model's bad input is refused with a message it can act on before the tool runs (see `own-schema-bounds`). The parameters' names and meaning are 1.0.10's, which declares `number` without bounds.",
  },
  {
    id: "older-era-agent-wording",
    references: older,
    key: /^event\.field:subagent\.started\.agentDescription$/,
    reason: "The event reference defines `agentDescription` as the \"description of what the sub-agent does\": Tandem describes its built-in agents in its own words (the display name, \"Explore Agent\", is the same as 1.0.10's).",
  },
  {
    id: "older-era-docs-tool",
    references: older,
    key: /^request\.tools\.only-ref:fetch_copilot_cli_documentation$/,
    reason: "The event reference describes the session's events, not the tools a runtime offers: 1.0.10 adds a fetcher of its own CLI's documentation to a resumed session only; Tandem has no such documentation to fetch.",
  },
  {
    id: "older-era-prompt-preprocessing",
    references: older,
    key: /^(request\.message\.user\.content|event\.field:user\.message\.transformedContent)$/,
    text: /ref "[^|]*<reminder>sql_tables<\/reminder>[^|]*" \| tandem "(?![^|]*<reminder>)/,
    reason: "The event reference defines `transformedContent` as the prompt's \"transformed version after preprocessing\", which is the runtime's own: 1.0.10 appends a reminder of its SQL session tables to every prompt (1.0.102 no longer does), and the model request carries the same text.",
  },
];

/**
 * The first rule that explains a divergence against a reference in a scenario, if any.
 * @param {import("./diff.mjs").Divergence} divergence
 * @param {string} referenceId
 * @param {string} [scenarioId]
 * @returns {AllowRule | undefined}
 * @example
 * explain({ area: "event", key: "event.field:session.start.producer", text: "…" }, "cli-1.0.10")?.id; // "identity"
 */
export function explain(divergence, referenceId, scenarioId) {
  return allowRules.find(
    (rule) =>
      (!rule.references || rule.references.includes(referenceId)) &&
      (!rule.scenarios || (scenarioId !== undefined && rule.scenarios.includes(scenarioId))) &&
      rule.key.test(divergence.key) &&
      (!rule.text || rule.text.test(divergence.text)) &&
      (!rule.when || rule.when(divergence)),
  );
}
