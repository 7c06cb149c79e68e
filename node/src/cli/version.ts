import type { CommandModule } from "yargs";
import type { ChainProgram } from "./chain-program.js";

export type VersionOutput = "text" | "json";

/** Prints the binary's version: the version alone, or with --long every field (visor reads the JSON form). */
export function printVersion(p: Pick<ChainProgram, "name" | "version">, long: boolean, output: string): void {
  const info = {
    name: p.name,
    server_name: p.name,
    version: p.version,
    commit: process.env.CHAIND_COMMIT ?? "",
    build_tags: "",
    node_version: process.version,
    runtime: `${process.platform}/${process.arch}`,
  };
  if (output === "json") process.stdout.write(`${JSON.stringify(long ? info : { version: p.version })}\n`);
  else if (long) {
    for (const [k, v] of Object.entries(info)) process.stdout.write(`${k}: ${v}\n`);
  } else process.stdout.write(`${p.version}\n`);
}

/** `chaind version [--long] [-o json]`; visor reads `version --long --output json`. */
export function versionCommand(
  p: Pick<ChainProgram, "name" | "version">,
): CommandModule<object, { long: boolean; output: string }> {
  return {
    command: "version",
    describe: "Print the application binary version information",
    builder: (y) =>
      y
        .option("long", { type: "boolean", default: false, describe: "print long version information" })
        .option("output", { alias: "o", type: "string", choices: ["text", "json"], default: "text" }),
    handler: (args) => printVersion(p, args.long, args.output),
  };
}
