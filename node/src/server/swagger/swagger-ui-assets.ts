import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder holding Swagger UI's files: `swagger-ui/` next to this code in a release archive (lib/chaind.js
 * beside lib/swagger-ui/), else the swagger-ui-dist package of a source tree.
 */
export function swaggerUiAssetsDir(): string {
  const beside = fileURLToPath(new URL("./swagger-ui/", import.meta.url));
  if (existsSync(join(beside, "swagger-ui-bundle.js"))) return beside;
  try {
    return dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  } catch {
    throw new Error(
      `Swagger UI assets not found: neither ${beside} nor the swagger-ui-dist package exists (api.swagger is on)`,
    );
  }
}
