import type { CommandModule } from "yargs";
import type { AppDefinition } from "../chain/app-definition.js";

/** `chaind version [--long] [-o json]`; visor reads `version --long --output json`. */
export function versionCommand(def: AppDefinition): CommandModule<object, { long: boolean; output: string }> {
  return {
    command: "version",
    describe: "Print the application binary version information",
    builder: (y) =>
      y
        .option("long", { type: "boolean", default: false, describe: "print long version information" })
        .option("output", { alias: "o", type: "string", choices: ["text", "json"], default: "text" }),
    handler: (args) => {
      const info = {
        name: def.name,
        server_name: def.name,
        version: def.version,
        commit: process.env.CHAIND_COMMIT ?? "",
        build_tags: "",
        node_version: process.version,
        runtime: `${process.platform}/${process.arch}`,
      };
      if (args.output === "json")
        process.stdout.write(`${JSON.stringify(args.long ? info : { version: def.version })}\n`);
      else if (args.long) {
        for (const [k, v] of Object.entries(info)) process.stdout.write(`${k}: ${v}\n`);
      } else process.stdout.write(`${def.version}\n`);
    },
  };
}
