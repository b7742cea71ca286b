/** http.head: ask a URL for its status and headers, without the body (see request.ts). */
import { httpCapability } from "./request.ts";

export const httpHead = httpCapability("HEAD");
