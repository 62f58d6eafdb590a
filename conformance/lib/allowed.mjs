/**
 * Divergences kept on purpose, each with its reason. A rule matches a divergence's key (and,
 * where given, its text). Everything not matched here is reported as a divergence to fix.
 * @module
 */

/**
 * @typedef {object} AllowRule
 * @property {string} id
 * @property {RegExp} key
 * @property {RegExp} [text]
 * @property {string} reason
 */

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
    key: /^request\.message\.tool\.content$/,
    text: /native tool permission flow failed|Failed to request permission: native tool permission/,
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
];

/**
 * The first rule that explains a divergence, if any.
 * @param {import("./diff.mjs").Divergence} divergence
 * @returns {AllowRule | undefined}
 */
export function explain(divergence) {
  return allowRules.find((rule) => rule.key.test(divergence.key) && (!rule.text || rule.text.test(divergence.text)));
}
