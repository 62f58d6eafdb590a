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
} from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../../errors.js";
import { agentFactoriesEnabled, agentFactoriesFlag, enabledFeatureFlagsVariable } from "../../factories/feature-flag.js";
import { SessionFactories, type FactoryHost } from "../../factories/session-factories.js";
import type { Runtime } from "../../runtime.js";
import type { Session } from "../../session/session.js";
import type { MethodTable } from "../dispatch.js";

/**
 * `session.factory.*`: agent factories extensions declare (see `factories/session-factories.ts`).
 * Switched on by `AGENT_FACTORIES` in `COPILOT_CLI_ENABLED_FEATURE_FLAGS`; without it every method
 * answers `NotAvailable`. Each session's runs are kept beside it for as long as it is open here.
 */
export function registerFactoryMethods(table: MethodTable, runtime: Runtime): void {
  const enabled = agentFactoriesEnabled(runtime.environment);
  const bySession = new WeakMap<Session, SessionFactories>();
  const factories = (sessionId: string): SessionFactories => {
    if (!enabled) {
      throw new TandemError(
        ErrorCodes.NotAvailable,
        `Agent factories are not available: they are experimental and switched off; start the runtime with ${agentFactoriesFlag} in ${enabledFeatureFlagsVariable}`,
      );
    }
    const session = runtime.sessions.get(sessionId);
    const existing = bySession.get(session);
    if (existing) return existing;
    const created = new SessionFactories(factoryHost(session));
    bySession.set(session, created);
    return created;
  };

  table.on(SessionFactoryRun, ({ sessionId, name, args, options }) => {
    const service = factories(sessionId);
    if (options?.resumeFromRunId !== undefined) return service.resume(options.resumeFromRunId, options.limits).run;
    return service.run(name, args ?? {}, options?.limits);
  });
  table.on(SessionFactoryResume, ({ sessionId, runId, limits }) => factories(sessionId).resume(runId, limits));
  table.on(SessionFactoryGetRun, ({ sessionId, runId }) => factories(sessionId).getRun(runId));
  table.on(SessionFactoryListRuns, ({ sessionId, afterSeq, beforeSeq, limit }) => ({
    runs: factories(sessionId).listRuns({ ...(afterSeq !== undefined ? { afterSeq } : {}), ...(beforeSeq !== undefined ? { beforeSeq } : {}), ...(limit !== undefined ? { limit } : {}) }),
  }));
  table.on(SessionFactoryGetRunDetail, ({ sessionId, runId }) => factories(sessionId).getRunDetail(runId));
  table.on(SessionFactoryGetRunProgress, ({ sessionId, runId, phaseId, afterSeq, beforeSeq, limit }) =>
    factories(sessionId).getRunProgress(runId, {
      ...(phaseId !== undefined ? { phaseId } : {}),
      ...(afterSeq !== undefined ? { afterSeq } : {}),
      ...(beforeSeq !== undefined ? { beforeSeq } : {}),
      ...(limit !== undefined ? { limit } : {}),
    }),
  );
  table.on(SessionFactoryCancel, ({ sessionId, runId }) => factories(sessionId).cancel(runId));
  table.on(SessionFactoryLog, ({ sessionId, runId, executionToken, lines }) => {
    factories(sessionId).log(runId, executionToken, lines);
    return {};
  });
  table.on(SessionFactoryAgent, ({ sessionId, factoryRunId, executionToken, prompt, opts }) => factories(sessionId).agent(factoryRunId, executionToken, prompt, opts));
  table.on(SessionFactoryJournalGet, ({ sessionId, runId, executionToken, key }) => factories(sessionId).journalGet(runId, executionToken, key));
  table.on(SessionFactoryJournalPut, ({ sessionId, runId, executionToken, key, resultJson }) => {
    factories(sessionId).journalPut(runId, executionToken, key, resultJson);
    return {};
  });
}

/** What a session's factories see of it. */
function factoryHost(session: Session): FactoryHost {
  return {
    sessionId: session.sessionId,
    logger: session.logger,
    declaredFactories: () => session.clients.declaredFactories(),
    runUpdated: (runId, revision) => session.emitter.emit("factory.run_updated", { runId, revision }),
    runAgent: (request) => session.agents.runDirect(request),
  };
}
