import { standardAppDefinition } from "../chain/app-definition.js";
import { runChaindCli } from "./chaind-cli.js";
import { packageVersion } from "./package-version.js";

void runChaindCli(standardAppDefinition("chaind", packageVersion()));
