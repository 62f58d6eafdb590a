/**
 * Fleet mode's message: asks the agent to split the task into independent parts and run them as
 * parallel sub-agents (the `task` tool), then merge their results. The session's limit on
 * concurrent sub-agents bounds how many run at once; each sub-agent's events carry its own
 * `parentToolCallId`. Without a prompt, the agent continues the current task as a fleet.
 *
 * @example
 * await session.send({ sessionId, prompt: fleetPrompt("migrate the tests") });
 */
export function fleetPrompt(prompt: string | undefined): string {
  const task = prompt?.trim() || "Continue with the current task.";
  return `${task}\n\n<fleet_instructions>\nWork as a fleet: split this into independent parts and hand each part to its own sub-agent with the task tool, calling task several times in one response so they run in parallel. When they are done, check their results and merge them into one answer.\n</fleet_instructions>`;
}
