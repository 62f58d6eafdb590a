/**
 * Divergences kept on purpose, each with its reason. A rule matches a divergence's key (and,
 * where given, its text), for the references it names (all when it names none). Everything not
 * matched here is reported as a divergence to fix. Rules for the older era's reference (1.0.10)
 * give the event reference of that era as their reason.
 * @module
 */

/**
 * @typedef {object} AllowRule
 * @property {string} id
 * @property {RegExp} key
 * @property {RegExp} [text]
 * @property {string[]} [references] the reference ids it applies to (`lib/references.mjs`); all when absent
 * @property {string} reason
 */

/** Today's references: the 1.0.102 CLI and the runtime bundled with SDK 1.0.x. */
const today = ["cli-1.0.102", "sdk-bundled"];

/** @type {AllowRule[]} */
export const allowRules = [
  {
    id: "own-prompt",
    key: /^request\.system\.sections$/,
    reason: "Tandem's default system prompt is its own text (it does not claim to be GitHub Copilot); only its presence is compared.",
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
    id: "copilot-billing",
    key: /^event\.(only-ref:session\.usage_checkpoint|field:(assistant\.usage|session\.shutdown)\.(provider|modelDisplayName|quotaSnapshots|copilotUsage|accountingSnapshot|totalNanoAiu|reasoningEffort|ttftMs|interTokenLatencyMs))/,
    reason: "Premium-request accounting and quota snapshots of the GitHub Copilot service; Tandem counts tokens, not GitHub billing units.",
  },
  {
    id: "ref-0.2-permissions",
    references: ["cli-1.0.102"],
    key: /^request\.message\.tool\.content$/,
    text: /native tool permission flow failed|Failed to request permission: native tool permission|Error: native too/,
    reason: "The reference (1.0.102) fails every built-in tool's permission round trip with the 0.2.0 SDK (it no longer reads 0.2.0's decision kinds), so it is no oracle there; the 1.0.x runs of the same scenario compare the real results.",
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
    id: "ref-1.0.10-shell-text",
    references: today,
    key: /^(request\.message\.tool\.content|event\.field:tool\.execution_complete\.(result\.content|result\.detailedContent))$/,
    text: /shellId: \d+ completed with exit code|ref "[^"]*" \| tandem "1\. |^[a-z._ ]*: ref "(?!1\. )[^"]*" \| tandem "1\. /,
    reason: "The lead's target is the interface shared/reference documents (1.0.10): bash's `<exited with exit code N>` marker and `view`'s numbered lines. shared/reference documents 1.0.10; 1.0.102 differs.",
  },
  {
    id: "ref-1.0.10-ephemeral",
    references: today,
    key: /^event\.ephemeral:(permission|external_tool)\.(requested|completed)$/,
    reason: "Permission and external-tool events are ephemeral in 1.0.10 and seed 001. shared/reference documents 1.0.10; 1.0.102 differs.",
  },
  {
    id: "ref-1.0.10-schemas",
    references: today,
    key: /^request\.tool-schema\.(grep|glob|web_fetch|read_bash|bash|view|read_agent|list_agents|task|sql|ask_user|task_complete)\./,
    reason: "Tool schemas follow 1.0.10 (grep/glob `path`, integer counts with bounds, `task` without `reasoning_effort`/`context_tier` and the research/security-review types; Tandem's `sql` keeps its `database` and `ask_user` its `allow_freeform`). shared/reference documents 1.0.10; 1.0.102 differs.",
  },
  {
    id: "ref-1.0.10-cache-marks",
    references: today,
    key: /^request\.message\.(user|assistant|tool)\.message$/,
    text: /copilot_cache_control/,
    reason: "Cache marks follow facts §0 (1.0.10): the system message, the last non-user message (assistant or tool) and the last tool; 1.0.102 marks the last user/tool message instead. shared/reference documents 1.0.10; 1.0.102 differs.",
  },
  {
    id: "ref-1.0.102-fields",
    references: today,
    key: /^event\.(field:(user\.message|assistant\.message|assistant\.message\.toolRequests|system\.message|session\.start|session\.resume|tool\.execution_start|tool\.execution_complete|tool\.execution_complete\.toolTelemetry(\.properties|\.metrics)?|permission\.requested|permission\.requested\.permissionRequest|subagent\.started|subagent\.completed|session\.shutdown(\.modelMetrics\.[\w.-]+)?)|only-ref:(model\.call_finished|assistant\.message_start))$/,
    text: /only ref has|only ref emits/,
    reason: "Data fields and events 1.0.102 adds beyond the documented 1.0.10 interface (optional in the 1.0.x schema): telemetry (`rte`, `toolTelemetry` metrics, `model.call_finished`), UI hints (`toolTitle`, `intentionSummary`, `shellToolInfo`, `commandSegments`, `promptRequest`), context tiers, prompt `contentBlocks`/`metadata`, sub-agent model-selection details. shared/reference documents 1.0.10; 1.0.102 differs.",
  },
  {
    id: "ref-1.0.10-fields",
    references: today,
    key: /^event\.field:(user|assistant)\.message$/,
    text: /^[a-z.]+ data\.\{keys\}: only tandem has (outputTokens|attachments|agentMode|attachments, agentMode)$/,
    reason: "Documented in 1.0.10 (facts §3, §4): `user.message` echoes `attachments` ([] by default), `assistant.message` carries `outputTokens` when not streaming; `agentMode` is a field of the 1.0.x schema. shared/reference documents 1.0.10; 1.0.102 differs.",
  },
  {
    id: "ref-1.0.10-abort",
    references: today,
    key: /^event\.(only-tandem:(abort|session\.info|assistant\.streaming_delta)|only-ref:abort|field:abort\.reason)$/,
    reason: "facts §4(f) (1.0.10): after `session.abort` come `abort {reason:\"user initiated\"}` and `session.info {infoType:\"cancellation\"}`; 1.0.102 writes the abort earlier, spells the reason `user_initiated` and sends no notice (and, streaming, no `assistant.streaming_delta`, facts §4(b)). shared/reference documents 1.0.10; 1.0.102 differs.",
  },
  {
    id: "resume-usage",
    key: /^event\.only-tandem:session\.usage_info$/,
    reason: "Tandem reports the size of a resumed history right away (compaction's measure), so a client sees the context use before the first send; the reference waits for the next model call.",
  },
  {
    id: "usage-telemetry",
    references: today,
    key: /^event\.field:assistant\.usage$/,
    text: /only ref has/,
    reason: "`assistant.usage` has the fields of facts §4 (1.0.10: model, token counts, cost, duration, initiator, apiCallId, providerCallId, quotaSnapshots); 1.0.102 adds Copilot billing and transport telemetry (provider, model display name, request body sizes, latencies, credit status; see `copilot-billing`). shared/reference documents 1.0.10; 1.0.102 differs.",
  },
  {
    id: "sampling-params",
    key: /^request\.params\.$/,
    text: /only ref has (temperature|top_p|frequency_penalty|presence_penalty|snippy)/,
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
    reason: "Deliberate: the shell permission request lists every command that will run, each with its own read-only verdict (the hardening issue requires it); the reference sends one entry for the whole line.",
  },
  {
    id: "own-prompt-event",
    key: /^event\.field:system\.message\.content$/,
    reason: "The `system.message` event carries Tandem's own system prompt (see `own-prompt`); its presence and shape are compared, not its text.",
  },
  {
    id: "tandem-mcp-status",
    key: /^event\.(only-tandem:session\.mcp_servers_loaded|field:session\.mcp_servers_loaded\.servers)$/,
    reason: "Tandem reports its own (here: empty) MCP server set once the session opens; the reference's events of this kind describe its built-in GitHub MCP server (see `github-mcp`), so the two never align.",
  },
  {
    id: "subagent-billing-initiator",
    key: /^event\.field:assistant\.usage\.initiator$/,
    text: /ref "sub-agent"/,
    reason: "`initiator` is a premium-request billing category of the Copilot service (see `copilot-billing`): Tandem reports who started the call in the session (`user`/`agent`).",
  },

  {
    id: "failed-call-result",
    key: /^event\.field:tool\.execution_complete$/,
    text: /data\.\{keys\}: only tandem has result$/,
    reason: "A failed call keeps the text the model saw in `result.content` beside `error` (the reference sends only `error`): Tandem rebuilds a resumed conversation from the events, and `error.message` is only the short label.",
  },
  {
    id: "subagent-parent-tool-call",
    key: /^event\.field:(subagent\.(selected|configured)|session\.(model_change|usage_info)|user\.message|system\.message)$/,
    text: /data\.\{keys\}: only tandem has parentToolCallId$/,
    reason: "A sub-agent's events carry `parentToolCallId` in their data (0.2.0 tells them apart by it; 1.0.x still declares it), where 1.0.102 puts an `agentId` on the envelope.",
  },
  {
    id: "ref-broken-run",
    key: /(?!)/,
    reason: "Every other divergence of a run where the reference failed its own permission flow (`ref-0.2-permissions`): it then loops on model calls and errors, so its side is no oracle for that run.",
  },
];

/** Explains the rest of a run whose reference side is broken (see `ref-0.2-permissions`). */
export const brokenReferenceRuleId = "ref-broken-run";

/**
 * The first rule that explains a divergence against a reference, if any.
 * @param {import("./diff.mjs").Divergence} divergence
 * @param {string} referenceId
 * @returns {AllowRule | undefined}
 * @example
 * explain({ area: "event", key: "event.field:session.start.producer", text: "…" }, "cli-1.0.10")?.id; // "identity"
 */
export function explain(divergence, referenceId) {
  return allowRules.find(
    (rule) => (!rule.references || rule.references.includes(referenceId)) && rule.key.test(divergence.key) && (!rule.text || rule.text.test(divergence.text)),
  );
}
