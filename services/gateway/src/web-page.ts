import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import express, { Router, type Response } from "express";
import { AppError } from "@agent-orchestrator/shared";
import { sendError } from "./send-error.js";

// the same from src/ (tests) and dist/ (the service): both sit one level below the package
const staticFolder = fileURLToPath(new URL("../web/static/", import.meta.url));
const scriptFolder = fileURLToPath(new URL("../web/dist/", import.meta.url));
const indexFile = `${staticFolder}index.html`;
const entryScript = `${scriptFolder}main.js`;

/**
 * Files keep their names across versions (there is no bundler to fingerprint them), so the browser must
 * ask again every time; the ETag makes that a cheap 304 when nothing changed.
 */
const revalidate = (response: Response): void => {
  response.set("cache-control", "no-cache");
};

const staticOptions = { index: false, redirect: false, dotfiles: "ignore", fallthrough: true, setHeaders: revalidate } as const;

/**
 * The web page: `index.html` at `/`, its style sheet and icon under `/assets/`, and the browser modules
 * compiled by `tsc -b` from `web/src` under `/assets/js/`. Only GET and HEAD are answered; anything not
 * found falls through to the API's 404. No authentication: the page itself asks for a token when the API
 * wants one.
 */
export function webPage(): Router {
  const router = Router();
  router.get("/", (_request, response) => {
    if (!existsSync(entryScript)) {
      sendError(response, new AppError("SERVICE_UNAVAILABLE", "The web page is not built: run `npm run build` (tsc -b) and restart the gateway"));
      return;
    }
    revalidate(response);
    response.sendFile(indexFile);
  });
  // only the compiled modules: the declaration files tsc writes beside them are not for browsers
  router.use("/assets/js", (request, response, next) => (request.path.endsWith(".js") ? next() : next("router")), express.static(scriptFolder, staticOptions));
  router.use("/assets", express.static(staticFolder, staticOptions));
  return router;
}
