import { packageVersion } from "@chaind/core/package-version";
import { runChaindCli } from "./chaind-cli.js";

const version = packageVersion(import.meta.url);

void runChaindCli({
  name: "chaind",
  version,
  app: async () => (await import("../chain/app-definition.js")).standardAppDefinition("chaind", version),
});
