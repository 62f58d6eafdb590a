import type { ToolContext } from "../../types.js";

/** How many redirects one fetch follows before it gives up. */
export const MAX_REDIRECTS = 10;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** What {@link fetchFollowingApprovedRedirects} ends with. */
export type RedirectedFetch =
  | { ok: true; response: Response; url: URL }
  | { ok: false; kind: "network"; error: unknown }
  | { ok: false; kind: "refused"; reason: string; resultType: "failure" | "denied" };

/** Extra `fetch` options of every hop. */
export interface HopOptions {
  headers: Record<string, string>;
}

/**
 * GETs `url` with `redirect: "manual"` and follows redirects by hand. A redirect within the same
 * origin (scheme, host and port) is followed as it is; one to another origin is a new URL to the
 * session: it asks a `url` permission for the full target (an earlier approve-for-session of exactly
 * that origin answers without asking; a hook's or skill's approval of the call does not) and
 * nothing is sent to the target unless it is approved. A
 * redirect to anything but http(s), a `Location` that is not a URL, or more than {@link MAX_REDIRECTS}
 * hops end the fetch with a reason the model can read.
 *
 * @example
 * const fetched = await fetchFollowingApprovedRedirects(new URL("https://example.com/"), context, signal, { headers: {} });
 * if (fetched.ok) console.log(fetched.url.href, fetched.response.status);
 */
export async function fetchFollowingApprovedRedirects(start: URL, context: ToolContext, signal: AbortSignal, options: HopOptions): Promise<RedirectedFetch> {
  let url = start;
  for (let hops = 0; ; hops++) {
    let response: Response;
    try {
      response = await fetch(url, { redirect: "manual", signal, headers: options.headers });
    } catch (error) {
      return { ok: false, kind: "network", error };
    }
    if (!REDIRECT_STATUSES.has(response.status)) return { ok: true, response, url };
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get("location");
    if (location === null) return { ok: true, response, url };
    const target = parseTarget(location, url);
    if (!target) return refused(`The server at ${url.href} redirected to ${JSON.stringify(location)}, which is not a URL; it was not followed.`);
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      return refused(`The server at ${url.href} redirected to ${target.href}; only http:// and https:// redirects are followed.`);
    }
    if (hops + 1 > MAX_REDIRECTS) return refused(`Too many redirects: gave up after ${MAX_REDIRECTS} (the last one pointed to ${target.href}).`);
    if (target.origin !== url.origin) {
      const decision = await context.requestPermission({ kind: "url", intention: `Follow a redirect from ${url.origin} to fetch web content`, url: target.href }, { newTarget: true });
      if (decision.kind !== "approved") {
        return refused(`The redirect target ${target.href} (redirected from ${url.href}) was not approved, so it was not fetched.`, "denied");
      }
    }
    url = target;
  }
}

function parseTarget(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

function refused(reason: string, resultType: "failure" | "denied" = "failure"): RedirectedFetch {
  return { ok: false, kind: "refused", reason, resultType };
}
