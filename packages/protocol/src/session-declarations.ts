/**
 * What a client declares for a session in `session.create` / `session.resume` beside its tools:
 * slash commands, canvases, agent factories and the sandbox. The runtime reads these at every
 * create, so they live apart from the method areas' files (`methods/commands.ts`,
 * `methods/canvas.ts`, `methods/factory.ts`, `methods/sandbox.ts`), whose tokens load only with
 * their areas.
 * @module
 */
import { z } from "zod";

/** A command an application or extension registers (`commands` on `session.create` / `session.resume`). */
export const CommandRegistration = z.looseObject({ name: z.string().min(1), description: z.string().optional() });
export type CommandRegistration = z.infer<typeof CommandRegistration>;

/** An action an open canvas offers. */
export const CanvasActionDeclaration = z.lazy(() => z.looseObject({ name: z.string().min(1), description: z.string().optional(), inputSchema: z.unknown().optional() }));

/** A canvas as a client declares it (`canvases` in `session.create` / `session.resume`). */
export const CanvasDeclaration = z.lazy(() => z.looseObject({
  id: z.string().min(1),
  displayName: z.string(),
  description: z.string(),
  inputSchema: z.unknown().optional(),
  actions: z.array(CanvasActionDeclaration).optional(),
}));
export type CanvasDeclaration = z.infer<typeof CanvasDeclaration>;

/** Resource ceilings a factory declares, or a run is given. */
export const FactoryLimits = z.lazy(() => z.looseObject({
  maxConcurrentSubagents: z.number().int().positive().optional(),
  maxTotalSubagents: z.number().int().positive().optional(),
  timeoutSeconds: z.number().positive().finite().optional(),
  maxAiCredits: z.number().positive().finite().optional(),
}));
export type FactoryLimits = z.infer<typeof FactoryLimits>;

/** A factory as an extension declares it (`factories` in `session.resume`). */
export const FactoryMeta = z.lazy(() => z.looseObject({
  name: z.string().min(1),
  description: z.string(),
  phases: z.array(z.looseObject({ title: z.string(), detail: z.string().optional() })),
  argsSchema: z.record(z.string(), z.unknown()).optional(),
  limits: FactoryLimits.optional(),
}));
export type FactoryMeta = z.infer<typeof FactoryMeta>;

/** Which parts of the file system sandboxed processes may touch (absolute paths; `~` is the user's home). */
export const SandboxFilesystemPolicy = z.looseObject({
  /** Writable (the session's working directory is writable unless `addCurrentWorkingDirectory: false`). */
  readwritePaths: z.array(z.string()).optional(),
  /** Readable, not writable (the whole system is read-only anyway; this makes a path under a writable one read-only). */
  readonlyPaths: z.array(z.string()).optional(),
  /** Invisible: an empty directory (or an empty file) is mounted over each. */
  deniedPaths: z.array(z.string()).optional(),
  clearPolicyOnExit: z.boolean().optional(),
});
export type SandboxFilesystemPolicy = z.infer<typeof SandboxFilesystemPolicy>;

/** What sandboxed processes may reach on the network. */
export const SandboxNetworkPolicy = z.looseObject({
  /** Any outbound traffic at all (default false: the sandbox has only its own loopback). */
  allowOutbound: z.boolean().optional(),
  /** Loopback and private addresses of the host (default false). */
  allowLocalNetwork: z.boolean().optional(),
  /** Host names reachable through the runtime's HTTP(S) proxy (`HTTPS_PROXY` inside the sandbox); `*.example.com` matches subdomains. */
  allowedHosts: z.array(z.string()).optional(),
  /** Host names the proxy refuses even when `allowedHosts` or `allowOutbound` would let them through. */
  blockedHosts: z.array(z.string()).optional(),
  proxy: z.looseObject({ url: z.string(), username: z.string().optional(), password: z.string().optional() }).optional(),
});
export type SandboxNetworkPolicy = z.infer<typeof SandboxNetworkPolicy>;

/** A session's sandbox (`sandbox` of `session.create` / `session.resume`, or the runtime's `--sandbox` default). */
export const SandboxConfig = z.looseObject({
  enabled: z.boolean(),
  userPolicy: z.looseObject({ filesystem: SandboxFilesystemPolicy.optional(), network: SandboxNetworkPolicy.optional() }).optional(),
  /** Make the session's working directory writable (default true). */
  addCurrentWorkingDirectory: z.boolean().optional(),
  /** Run the session's stdio MCP servers in the sandbox too (default true). */
  sandboxMcpServers: z.boolean().optional(),
  /** Let the model ask to run one command unsandboxed (the app must approve it), and allow `session.sandbox.disableForSession`. */
  allowBypass: z.boolean().optional(),
});
export type SandboxConfig = z.infer<typeof SandboxConfig>;
