import {
  AgentsDiscover,
  AgentsGetDiscoveryPaths,
  InstructionsDiscover,
  InstructionsGetDiscoveryPaths,
  McpDiscover,
  SkillsConfigSetDisabledSkills,
  SkillsDiscover,
  SkillsGetDiscoveryPaths,
} from "@tandem/protocol/methods/discovery";
import { Discovery } from "../../discovery/discovery.js";
import { workingDirectoryFiles } from "../../loop/custom-instructions.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/** Sessionless discovery: `skills.*`, `agents.*`, `instructions.*` (`discover`, `getDiscoveryPaths`), `mcp.discover`. */
export function registerDiscoveryMethods(table: MethodTable, runtime: RuntimeServices): void {
  const discovery = new Discovery({ home: runtime.store.home, instructionFiles: workingDirectoryFiles, logger: runtime.logger });
  const settings = runtime.userSettings;

  table.on(SkillsGetDiscoveryPaths, async ({ projectPaths, excludeHostSkills }) => ({
    paths: discovery.skillPaths(projectPaths ?? [], excludeHostSkills === true, (await settings.values()).discoverProjectSkills),
  }));
  table.on(SkillsDiscover, async ({ projectPaths, skillDirectories, excludeHostSkills }) => {
    const values = await settings.values();
    const skills = await discovery.skills({
      projectPaths: projectPaths ?? [],
      skillDirectories: skillDirectories ?? [],
      excludeHost: excludeHostSkills === true,
      includeProjects: values.discoverProjectSkills,
      disabled: new Set(values.disabledSkills),
    });
    return { skills };
  });
  table.on(SkillsConfigSetDisabledSkills, async ({ disabledSkills }) => {
    await settings.set({ disabledSkills });
    return {};
  });

  table.on(AgentsGetDiscoveryPaths, ({ projectPaths, excludeHostAgents }) => ({ paths: discovery.agentPaths(projectPaths ?? [], excludeHostAgents === true) }));
  table.on(AgentsDiscover, async ({ projectPaths, excludeHostAgents }) => ({ agents: await discovery.agents(projectPaths ?? [], excludeHostAgents === true) }));

  table.on(InstructionsGetDiscoveryPaths, ({ projectPaths }) => ({ paths: discovery.instructionPaths(projectPaths ?? []) }));
  table.on(InstructionsDiscover, async ({ projectPaths }) => ({ sources: await discovery.instructions(projectPaths ?? []) }));

  // Tandem reads no MCP configuration files: a session's MCP servers are the ones its client passes.
  table.on(McpDiscover, () => ({ servers: [] }));
}
