/** http.get: fetch a URL, its status, headers, timing and body (see request.ts for what the two methods share). */
import { httpCapability } from "./request.ts";

export const httpGet = httpCapability("GET");
