import { ProviderError } from "../providers/errors.js";

/** How model calls are retried. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff; doubles each retry (with jitter), capped at `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

/** The default: 3 retries, 1 s, 2 s, 4 s (±20 %), `retry-after` honoured up to 60 s. */
export const defaultRetryPolicy: RetryPolicy = { maxRetries: 3, baseDelayMs: 1000, maxDelayMs: 60_000 };

/** Reads a retry policy from `TANDEM_MAX_RETRIES` / `TANDEM_RETRY_BASE_MS`, else the default. */
export function retryPolicyFromEnv(env: NodeJS.ProcessEnv): RetryPolicy {
  const maxRetries = Number(env.TANDEM_MAX_RETRIES);
  const baseDelayMs = Number(env.TANDEM_RETRY_BASE_MS);
  return {
    maxRetries: Number.isInteger(maxRetries) && maxRetries >= 0 ? maxRetries : defaultRetryPolicy.maxRetries,
    baseDelayMs: Number.isFinite(baseDelayMs) && baseDelayMs >= 0 ? baseDelayMs : defaultRetryPolicy.baseDelayMs,
    maxDelayMs: defaultRetryPolicy.maxDelayMs,
  };
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable error, the retries are spent or
 * `signal` aborts. `onRetry` hears about each retry before the wait.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  signal: AbortSignal,
  attempt: (attemptNumber: number) => Promise<T>,
  onRetry: (error: ProviderError, delayMs: number, attemptNumber: number) => void,
  mayRetry: () => boolean = () => true,
): Promise<T> {
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (signal.aborted) throw error;
      if (!(error instanceof ProviderError) || !error.retryable || attemptNumber > policy.maxRetries || !mayRetry()) throw error;
      const backoff = policy.baseDelayMs * 2 ** (attemptNumber - 1) * (0.8 + Math.random() * 0.4);
      const delayMs = Math.min(policy.maxDelayMs, Math.max(backoff, error.retryAfterMs ?? 0));
      onRetry(error, delayMs, attemptNumber);
      await sleep(delayMs, signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
