import { packageVersion } from "@chaind/core/package-version";
import { standardAppDefinition } from "../chain/app-definition.js";
import { runChaindCli } from "./chaind-cli.js";

void runChaindCli(standardAppDefinition("chaind", packageVersion(import.meta.url)));
