import { get } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webPage } from "./web-page.js";

let server: ReturnType<express.Express["listen"]>;
let base: string;

beforeAll(async () => {
  const app = express();
  app.use(webPage());
  // stands for the gateway's own 404: whatever the page does not serve must reach it
  app.use((_request, response) => void response.status(404).json({ success: false, error: { code: "NOT_FOUND", message: "No such route" } }));
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("the web page's routes", () => {
  it("serves index.html at / as HTML the browser must revalidate", async () => {
    const response = await fetch(`${base}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    const html = await response.text();
    expect(html).toContain('<script type="module" src="/assets/js/main.js"></script>');
    // the gateway's CSP forbids inline scripts: the page must not need any
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it("serves the style sheet, the icon and the compiled modules, those in folders too, with their content types", async () => {
    const types = await Promise.all(
      ["/assets/styles.css", "/assets/icon.svg", "/assets/js/main.js", "/assets/js/lib/markdown.js"].map(async (path) => {
        const response = await fetch(`${base}${path}`);
        return [path, response.status, response.headers.get("content-type"), response.headers.get("cache-control"), Boolean(response.headers.get("etag"))];
      }),
    );
    expect(types).toEqual([
      ["/assets/styles.css", 200, "text/css; charset=utf-8", "no-cache", true],
      ["/assets/icon.svg", 200, "image/svg+xml", "no-cache", true],
      ["/assets/js/main.js", 200, "text/javascript; charset=utf-8", "no-cache", true],
      ["/assets/js/lib/markdown.js", 200, "text/javascript; charset=utf-8", "no-cache", true],
    ]);
  });

  it("serves every script index.html loads, the libraries under versioned names a browser may keep for a year", async () => {
    const html = await (await fetch(`${base}/`)).text();
    const scripts = [...html.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)].map((match) => match[1] ?? "");
    expect(scripts).toEqual([expect.stringMatching(/^\/assets\/vendor\/markdown-it-[\d.]+\.min\.js$/), expect.stringMatching(/^\/assets\/vendor\/purify-[\d.]+\.min\.js$/), expect.stringMatching(/^\/assets\/vendor\/diff-[\d.]+\.min\.js$/), "/assets/js/main.js"]);
    const served = await Promise.all(
      scripts.map(async (path) => {
        const response = await fetch(`${base}${path}`);
        return [path, response.status, response.headers.get("content-type"), response.headers.get("cache-control")];
      }),
    );
    expect(served).toEqual([
      [scripts[0], 200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"],
      [scripts[1], 200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"],
      [scripts[2], 200, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"],
      ["/assets/js/main.js", 200, "text/javascript; charset=utf-8", "no-cache"],
    ]);
  });

  it("answers an unchanged file with 304 when the browser revalidates it", async () => {
    const etag = (await fetch(`${base}/assets/styles.css`)).headers.get("etag") ?? "";
    // node:http, not fetch: fetch adds `cache-control: no-cache` to a conditional request, which forbids a 304
    const status = await new Promise<number | undefined>((resolve, reject) =>
      get(`${base}/assets/styles.css`, { headers: { "if-none-match": etag } }, (response) => {
        response.resume();
        resolve(response.statusCode);
      }).on("error", reject),
    );
    expect(status).toBe(304);
  });

  it("leaves declaration files, unknown files and other methods to the 404", async () => {
    for (const [method, path] of [
      ["GET", "/assets/js/main.d.ts"],
      ["GET", "/assets/nothing.css"],
      ["GET", "/assets/vendor/markdown-it-0.0.1.min.js"],
      ["GET", "/assets/vendor/markdown-it.min.js"],
      ["POST", "/"],
      ["GET", "/index.html"],
    ] as const) {
      const response = await fetch(`${base}${path}`, { method });
      expect([method, path, response.status]).toEqual([method, path, 404]);
    }
  });

  it("serves nothing outside its folders through dot segments (path traversal)", async () => {
    for (const path of ["/assets/..%2f..%2fpackage.json", "/assets/%2e%2e/%2e%2e/package.json", "/assets/js/..%2f..%2fsrc%2fweb-page.ts", "/assets/..%5c..%5cpackage.json"]) {
      const response = await fetch(`${base}${path}`);
      expect([path, response.status]).toEqual([path, 404]);
      expect(await response.text()).not.toContain("@agent-orchestrator/gateway");
    }
  });
});
