import { z } from "zod";
import { skillSummaryFields } from "../common.js";
import { defineRequest } from "../method.js";

const projectPaths = z.lazy(() => z.array(z.string()).optional());

/** A place where the runtime looks for (or would create) skills, agents or instructions. */
const DiscoveryPath = z.looseObject({ path: z.string(), preferredForCreation: z.boolean(), projectPath: z.string().optional() });

/** A skill found on disk by `skills.discover`. */
export const DiscoveredSkill = z.lazy(() => z.looseObject({ ...skillSummaryFields(), projectPath: z.string().optional() }));

/** `skills.discover`: the skills of the projects' skill folders, the user's and the given folders. */
export const SkillsDiscover = defineRequest(
  "skills.discover",
  () => z.looseObject({ projectPaths, skillDirectories: z.array(z.string()).optional(), excludeHostSkills: z.boolean().optional() }),
  () => z.looseObject({ skills: z.array(DiscoveredSkill) }),
);

/** `skills.getDiscoveryPaths`: the folders `skills.discover` reads, in priority order. */
export const SkillsGetDiscoveryPaths = defineRequest(
  "skills.getDiscoveryPaths",
  () => z.looseObject({ projectPaths, excludeHostSkills: z.boolean().optional() }),
  () => z.looseObject({ paths: z.array(DiscoveryPath.extend({ scope: z.enum(["project", "personal-copilot", "personal-agents", "custom"]) })) }),
);

/** `skills.config.setDisabledSkills`: the skills turned off in the user's settings (`disabledSkills`). */
export const SkillsConfigSetDisabledSkills = defineRequest(
  "skills.config.setDisabledSkills",
  () => z.looseObject({ disabledSkills: z.array(z.string()) }),
  () => z.looseObject({}).nullable(),
);

/** A custom agent found on disk by `agents.discover`. */
export const DiscoveredAgent = z.lazy(() => z.looseObject({
  name: z.string(),
  displayName: z.string(),
  description: z.string(),
  id: z.string(),
  path: z.string().optional(),
  source: z.string().optional(),
  userInvocable: z.boolean().optional(),
  tools: z.array(z.string()).optional(),
  model: z.string().optional(),
}));

/** `agents.discover`: the custom agents (`*.agent.md`, `*.md`) of the projects' and the user's agent folders. */
export const AgentsDiscover = defineRequest(
  "agents.discover",
  () => z.looseObject({ projectPaths, excludeHostAgents: z.boolean().optional() }),
  () => z.looseObject({ agents: z.array(DiscoveredAgent) }),
);

/** `agents.getDiscoveryPaths`: the folders `agents.discover` reads, in priority order. */
export const AgentsGetDiscoveryPaths = defineRequest(
  "agents.getDiscoveryPaths",
  () => z.looseObject({ projectPaths, excludeHostAgents: z.boolean().optional() }),
  () => z.looseObject({ paths: z.array(DiscoveryPath.extend({ scope: z.enum(["user", "project"]) })) }),
);

/** An instruction file found by `instructions.discover`. */
export const DiscoveredInstructionSource = z.lazy(() => z.looseObject({
  id: z.string(),
  label: z.string(),
  sourcePath: z.string(),
  content: z.string(),
  type: z.string(),
  location: z.enum(["user", "repository", "working-directory", "plugin"]),
  applyTo: z.array(z.string()).optional(),
  projectPath: z.string().optional(),
}));

/** `instructions.discover`: the instruction files a session in each project would read. */
export const InstructionsDiscover = defineRequest(
  "instructions.discover",
  () => z.looseObject({ projectPaths, excludeHostInstructions: z.boolean().optional() }),
  () => z.looseObject({ sources: z.array(DiscoveredInstructionSource) }),
);

/** `instructions.getDiscoveryPaths`: the files and folders `instructions.discover` reads. */
export const InstructionsGetDiscoveryPaths = defineRequest(
  "instructions.getDiscoveryPaths",
  () => z.looseObject({ projectPaths, excludeHostInstructions: z.boolean().optional() }),
  () => z.looseObject({
    paths: z.array(DiscoveryPath.extend({ location: z.enum(["user", "repository", "working-directory", "plugin"]), kind: z.enum(["file", "directory"]) })),
  }),
);

/** `mcp.discover`: MCP servers configured on disk for a working directory. */
export const McpDiscover = defineRequest(
  "mcp.discover",
  () => z.preprocess((value) => (value === undefined || value === null ? {} : value), z.looseObject({ workingDirectory: z.string().optional() })),
  () => z.looseObject({
    servers: z.array(z.looseObject({ name: z.string(), type: z.enum(["stdio", "http", "sse", "memory"]).optional(), source: z.string(), enabled: z.boolean() })),
  }),
);

/** The discovery requests Tandem serves. */
export const discoveryRequests = [
  SkillsDiscover,
  SkillsGetDiscoveryPaths,
  SkillsConfigSetDisabledSkills,
  AgentsDiscover,
  AgentsGetDiscoveryPaths,
  InstructionsDiscover,
  InstructionsGetDiscoveryPaths,
  McpDiscover,
] as const;
