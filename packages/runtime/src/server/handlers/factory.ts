import {
  SessionFactoryAgent,
  SessionFactoryCancel,
  SessionFactoryGetRun,
  SessionFactoryGetRunDetail,
  SessionFactoryGetRunProgress,
  SessionFactoryJournalGet,
  SessionFactoryJournalPut,
  SessionFactoryListRuns,
  SessionFactoryLog,
  SessionFactoryResume,
  SessionFactoryRun,
} from "@tandem/protocol/methods/factory";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../../errors.js";
import { agentFactoriesEnabled, agentFactoriesFlag, enabledFeatureFlagsVariable } from "../../factories/feature-flag.js";
import type { FactoryHost, SessionFactories } from "../../factories/session-factories.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { Session } from "../../session/session.js";
import type { MethodTable } from "../method-table.js";

/**
 * `session.factory.*`: agent factories extensions declare (see `factories/session-factories.ts`).
 * Switched on by `AGENT_FACTORIES` in `COPILOT_CLI_ENABLED_FEATURE_FLAGS`; without it every method
 * answers `NotAvailable`. Each session's runs are kept beside it for as long as it is open here.
 */
export function registerFactoryMethods(table: MethodTable, runtime: RuntimeServices): void {
  const enabled = agentFactoriesEnabled(runtime.environment);
  const bySession = new WeakMap<Session, SessionFactories>();
  // Loaded on first use: a runtime that never runs a factory never loads the module.
  const factories = async (sessionId: string): Promise<SessionFactories> => {
    if (!enabled) {
      throw new TandemError(
        ErrorCodes.NotAvailable,
        `Agent factories are not available: they are experimental and switched off; start the runtime with ${agentFactoriesFlag} in ${enabledFeatureFlagsVariable}`,
      );
    }
    const session = runtime.sessions.get(sessionId);
    const existing = bySession.get(session);
    if (existing) return existing;
    const { SessionFactories } = await import("../../factories/session-factories.js");
    const again = bySession.get(session);
    if (again) return again;
    const created = new SessionFactories(factoryHost(session));
    bySession.set(session, created);
    return created;
  };

  table.on(SessionFactoryRun, async ({ sessionId, name, args, options }) => {
    const service = await factories(sessionId);
    if (options?.resumeFromRunId !== undefined) return service.resume(options.resumeFromRunId, options.limits).run;
    return service.run(name, args ?? {}, options?.limits);
  });
  table.on(SessionFactoryResume, async ({ sessionId, runId, limits }) => (await factories(sessionId)).resume(runId, limits));
  table.on(SessionFactoryGetRun, async ({ sessionId, runId }) => (await factories(sessionId)).getRun(runId));
  table.on(SessionFactoryListRuns, async ({ sessionId, afterSeq, beforeSeq, limit }) => ({
    runs: (await factories(sessionId)).listRuns({ ...(afterSeq !== undefined ? { afterSeq } : {}), ...(beforeSeq !== undefined ? { beforeSeq } : {}), ...(limit !== undefined ? { limit } : {}) }),
  }));
  table.on(SessionFactoryGetRunDetail, async ({ sessionId, runId }) => (await factories(sessionId)).getRunDetail(runId));
  table.on(SessionFactoryGetRunProgress, async ({ sessionId, runId, phaseId, afterSeq, beforeSeq, limit }) =>
    (await factories(sessionId)).getRunProgress(runId, {
      ...(phaseId !== undefined ? { phaseId } : {}),
      ...(afterSeq !== undefined ? { afterSeq } : {}),
      ...(beforeSeq !== undefined ? { beforeSeq } : {}),
      ...(limit !== undefined ? { limit } : {}),
    }),
  );
  table.on(SessionFactoryCancel, async ({ sessionId, runId }) => (await factories(sessionId)).cancel(runId));
  table.on(SessionFactoryLog, async ({ sessionId, runId, executionToken, lines }) => {
    (await factories(sessionId)).log(runId, executionToken, lines);
    return {};
  });
  table.on(SessionFactoryAgent, async ({ sessionId, factoryRunId, executionToken, prompt, opts }) => (await factories(sessionId)).agent(factoryRunId, executionToken, prompt, opts));
  table.on(SessionFactoryJournalGet, async ({ sessionId, runId, executionToken, key }) => (await factories(sessionId)).journalGet(runId, executionToken, key));
  table.on(SessionFactoryJournalPut, async ({ sessionId, runId, executionToken, key, resultJson }) => {
    (await factories(sessionId)).journalPut(runId, executionToken, key, resultJson);
    return {};
  });
}

/** What a session's factories see of it. */
function factoryHost(session: Session): FactoryHost {
  return {
    sessionId: session.sessionId,
    logger: session.scope.logger,
    declaredFactories: () => session.scope.clients.declaredFactories(),
    runUpdated: (runId, revision) => session.emitter.emit("factory.run_updated", { runId, revision }),
    runAgent: (request) => session.agents.runDirect(request),
  };
}
