import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import type { Logger } from "@chaind/core/logger";
import type { HttpMount } from "../rest/rest-gateway.js";
import type { RestRoute } from "../rest/rest-routes.js";
import { openApiDocument } from "./openapi-document.js";
import { swaggerUiAssetsDir } from "./swagger-ui-assets.js";

/** Swagger UI's files we serve, with their content types; nothing else under /swagger/ is read from disk. */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "index.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "application/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "application/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
};

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <title>REST API - Swagger UI</title>
  <link rel="stylesheet" type="text/css" href="/swagger/swagger-ui.css">
  <link rel="stylesheet" type="text/css" href="/swagger/index.css">
  <link rel="icon" type="image/png" href="/swagger/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/swagger/swagger-ui-bundle.js"></script>
  <script src="/swagger/swagger-ui-standalone-preset.js"></script>
  <script src="/swagger/initializer.js"></script>
</body>
</html>
`;

// validatorUrl null: the page never calls out to swagger.io.
const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/swagger/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout",
  });
};
`;

function isSwaggerPath(pathname: string): boolean {
  return pathname === "/swagger" || pathname.startsWith("/swagger/");
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Serves Swagger UI on /swagger and the OpenAPI document on /swagger/openapi.json (api.swagger on). Without UI
 * files beside the binary the node still starts: the document is served, and /swagger says what is missing.
 */
export async function swaggerMount(
  routes: readonly RestRoute[],
  info: { title: string; version: string },
  logger: Logger,
): Promise<HttpMount> {
  const assets = swaggerUiAssetsDir();
  const doc = JSON.stringify(openApiDocument(routes, info));
  const files = new Map<string, Buffer>();
  let page = PAGE;
  if ("dir" in assets)
    for (const name of Object.keys(ASSETS)) files.set(name, await readFile(join(assets.dir, name)));
  else {
    logger.warn("Swagger UI files not found: /swagger serves the OpenAPI document only", {
      reason: assets.missing,
    });
    page = `<!DOCTYPE html><title>Swagger UI</title><p>Swagger UI's files are not installed beside this binary (${assets.missing.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`)}). The OpenAPI document is at <a href="/swagger/openapi.json">/swagger/openapi.json</a>.</p>\n`;
  }
  return (req: IncomingMessage, res: ServerResponse, pathname: string) => {
    if (!isSwaggerPath(pathname)) return false;
    req.resume();
    if (req.method !== "GET" && req.method !== "HEAD") {
      send(
        res,
        405,
        "application/json",
        JSON.stringify({ code: 12, message: "Method Not Allowed", details: [] }),
      );
      return true;
    }
    const name = pathname.replace(/^\/swagger\/?/, "");
    if (name === "" || name === "index.html")
      send(res, "dir" in assets ? 200 : 503, "text/html; charset=utf-8", page);
    else if (name === "openapi.json") send(res, 200, "application/json", doc);
    else if (name === "initializer.js") send(res, 200, "application/javascript; charset=utf-8", INITIALIZER);
    else {
      const file = files.get(name);
      if (file) send(res, 200, ASSETS[name], file);
      else send(res, 404, "application/json", JSON.stringify({ code: 5, message: "Not Found", details: [] }));
    }
    return true;
  };
}

/** With api.swagger off, /swagger answers 404 rather than the gateway's unknown-route 501. */
export const swaggerOffMount: HttpMount = (req, res, pathname) => {
  if (!isSwaggerPath(pathname)) return false;
  req.resume();
  send(
    res,
    404,
    "application/json",
    JSON.stringify({ code: 5, message: "Swagger is disabled (app.toml api.swagger = false)", details: [] }),
  );
  return true;
};
