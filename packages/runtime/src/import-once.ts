/**
 * Loading a module on first use: code a session's create does not run stays out of what the first
 * `session.create` parses, and the module loader is asked once, not at every call.
 * @module
 */

/**
 * `load` (a dynamic `import()`), run by the first call and its promise shared by the later ones; a
 * failed load is tried again by the next call.
 *
 * @example
 * const loadParser = importOnce(() => import("./parser.js"));
 * const { parse } = await loadParser();
 */
export function importOnce<Module>(load: () => Promise<Module>): () => Promise<Module> {
  let loading: Promise<Module> | undefined;
  return () => {
    if (loading) return loading;
    const started = load();
    loading = started;
    started.catch(() => {
      if (loading === started) loading = undefined;
    });
    return started;
  };
}
