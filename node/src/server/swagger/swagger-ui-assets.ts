import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder holding Swagger UI's files: `swagger-ui/` next to this code in a release archive (lib/chaind.js
 * beside lib/swagger-ui/), else the swagger-ui-dist package of a source tree; or why there is none (a supervisor
 * such as cosmovisor installs the binary alone).
 */
export function swaggerUiAssetsDir(): { dir: string } | { missing: string } {
  const beside = fileURLToPath(new URL("./swagger-ui/", import.meta.url));
  if (existsSync(join(beside, "swagger-ui-bundle.js"))) return { dir: beside };
  try {
    return { dir: dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json")) };
  } catch {
    return { missing: `neither ${beside} nor the swagger-ui-dist package exists` };
  }
}
