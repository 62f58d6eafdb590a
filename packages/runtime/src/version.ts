/** The runtime's version (kept in step with package.json). */
export const runtimeVersion = "0.1.0";
