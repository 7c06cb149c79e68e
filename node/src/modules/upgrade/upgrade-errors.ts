import { ChainError, type ErrorDef } from "../../errors/chain-error.js";
import { GrpcCode } from "../../errors/grpc-code.js";

const def = (code: number, desc: string, grpc: GrpcCode): ErrorDef => ({
  codespace: "upgrade",
  code,
  desc,
  grpc,
});

/** x/upgrade's registered errors (Cosmos codes). */
export const UpgradeErrors = {
  NoModuleVersionFound: def(4, "module version not found", GrpcCode.NOT_FOUND),
  InvalidSigner: def(
    7,
    "expected authority account as only signer for proposal message",
    GrpcCode.PERMISSION_DENIED,
  ),
};

export const upgradeError = (d: ErrorDef, detail?: string) => ChainError.wrap(d, detail);
