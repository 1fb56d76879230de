import { ApiClient } from "./api-client.js";
import { LiveSocket } from "./live-socket.js";
import { PageSignIn } from "../sign-in/page-sign-in.js";
import { askForToken } from "../sign-in/token-dialog.js";
import { TokenStore } from "../sign-in/token-store.js";

/** The page's one token store. */
export const pageTokens = new TokenStore();

/** How the gateway signs the page in (OpenID Connect or not), loaded before the page starts. */
export const pageSignIn = new PageSignIn();

/** The page's one API client: every view talks to the gateway through it, and a refused token is asked for once. */
export const pageApi = new ApiClient(pageTokens, askForToken, pageSignIn);

/** The page's one WebSocket: the open chat's watch and decisions on its waiting tool calls. */
export const pageLive = new LiveSocket(pageTokens);
