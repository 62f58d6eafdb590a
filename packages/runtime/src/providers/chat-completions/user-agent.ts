import { runtimeVersion } from "../../version.js";

/** The `User-Agent` of Tandem's chat-completions requests (apart from the client, which loads on a session's first model call). */
export const userAgent = `tandem/${runtimeVersion}`;
