import { existsSync } from "node:fs";
import type { Argv, CommandModule } from "yargs";
import { chainPrefix } from "../client/chain-prefix.js";
import { CliError } from "../client/cli-error.js";
import { SHOW_GROUP_HELP } from "../client/cobra-errors.js";
import { HomeLayout } from "../config/home-layout.js";
import { readPrivValidatorKey } from "../config/priv-validator-key.js";
import { COMET_PROTOCOL, COMET_VERSION } from "../consensus/comet-version.js";
import { nodeIdOf } from "../consensus/node-id.js";
import type { ValidatorSigner } from "../consensus/validator-signer.js";
import { encodeBech32 } from "../crypto/bech32.js";
import type { GlobalArgs } from "./global-options.js";
import { resetState, unsafeResetAll, unsafeResetPrivValidator } from "./home-reset.js";

/** The ABCI version CometBFT 0.38 speaks (ABCI 2.0), as `comet version` prints it. */
const ABCI_VERSION = "2.0.0";

function validatorKey(home: string): ValidatorSigner {
  try {
    return readPrivValidatorKey(new HomeLayout(home).privValidatorKey);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
}

/** A reset needs a home: a mistyped --home must not become a fresh one. */
function existingHome(home: string): HomeLayout {
  const layout = new HomeLayout(home);
  if (!existsSync(layout.configDir))
    throw new CliError(`no node home at ${home}: ${layout.configDir} does not exist`);
  return layout;
}

const leaf = <A>(
  command: string,
  describe: string,
  handler: (a: A) => void | Promise<void>,
  builder?: (y: Argv<GlobalArgs>) => Argv<GlobalArgs>,
): CommandModule<GlobalArgs, A> => ({
  command,
  describe,
  builder: builder as never,
  handler: handler as never,
});

/**
 * `chaind comet` (alias `tendermint`): the CometBFT subcommands of Cosmos SDK 0.50 that apply to a chaind home,
 * printing what they print.
 */
export const cometCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: "comet",
  aliases: ["tendermint", "cometbft"],
  describe: "CometBFT subcommands",
  builder: (y) =>
    y
      .command(
        leaf<GlobalArgs>("show-node-id", "Show this node's ID", (a) => {
          process.stdout.write(`${nodeIdOf(new HomeLayout(a.home), validatorKey(a.home))}\n`);
        }),
      )
      .command(
        leaf<GlobalArgs>("show-validator", "Show this node's CometBFT validator info", (a) => {
          const key = Buffer.from(validatorKey(a.home).pubKey).toString("base64");
          process.stdout.write(`${JSON.stringify({ "@type": "/cosmos.crypto.ed25519.PubKey", key })}\n`);
        }),
      )
      .command(
        leaf<GlobalArgs>("show-address", "Shows this node's CometBFT validator consensus address", (a) => {
          const { address } = validatorKey(a.home);
          process.stdout.write(`${encodeBech32(`${chainPrefix(a.home)}valcons`, address)}\n`);
        }),
      )
      .command(
        leaf<GlobalArgs>("version", "Print CometBFT libraries' version", () => {
          // Cosmos prints these as YAML with the keys sorted, then a blank line.
          process.stdout.write(
            `ABCI: ${ABCI_VERSION}\nBlockProtocol: ${COMET_PROTOCOL.block}\nCometBFT: ${COMET_VERSION}\nP2PProtocol: ${COMET_PROTOCOL.p2p}\n\n`,
          );
        }),
      )
      .command(
        leaf<GlobalArgs>(
          "reset-state",
          "Remove all the data (blocks, state, indexes) but the validator's sign state; keys and config stay",
          async (a) => {
            for (const path of await resetState(existingHome(a.home)))
              process.stderr.write(`Removed ${path}\n`);
          },
        ),
      )
      .command(
        leaf<GlobalArgs>(
          "unsafe-reset-priv-validator",
          "(unsafe) Reset this node's validator to genesis state",
          async (a) => {
            const layout = existingHome(a.home);
            await unsafeResetPrivValidator(layout);
            process.stderr.write(
              `Reset private validator file to genesis state ${layout.privValidatorState}\n`,
            );
          },
        ),
      )
      .command(
        leaf<GlobalArgs & { "keep-addr-book": boolean }>(
          "unsafe-reset-all",
          "(unsafe) Remove all the data and the address book, reset this node's validator to genesis state",
          async (a) => {
            for (const path of await unsafeResetAll(existingHome(a.home), a["keep-addr-book"]))
              process.stderr.write(`Removed ${path}\n`);
          },
          (y) =>
            y.option("keep-addr-book", {
              type: "boolean",
              default: false,
              describe: "keep the address book intact",
            }) as never,
        ),
      )
      .demandCommand(1, SHOW_GROUP_HELP) as never,
  handler: () => {},
};
