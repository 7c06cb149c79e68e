import type { Metadata } from "@chaind/proto/sdk/bank/v1beta1/bank_pb";
import { validateDenom } from "../../app/coins.js";

const denomOk = (denom: string): boolean => {
  try {
    validateDenom(denom);
    return true;
  } catch {
    return false;
  }
};

/**
 * A denom's display metadata checked as Cosmos SDK 0.50's Metadata.Validate checks it (its words too): a name and
 * a symbol, valid base and display denoms, units that start with the base at exponent 0 and rise strictly, no
 * unit or alias twice, and a unit for the display denom. Throws an Error naming the first fault.
 */
export function validateDenomMetadata(m: Metadata): void {
  if (m.name.trim() === "") throw new Error("name field cannot be blank");
  if (m.symbol.trim() === "") throw new Error("symbol field cannot be blank");
  if (!denomOk(m.base)) throw new Error(`invalid metadata base denom: invalid denom: ${m.base}`);
  if (!denomOk(m.display)) throw new Error(`invalid metadata display denom: invalid denom: ${m.display}`);
  let hasDisplay = false;
  let exponent = 0;
  const units = new Set<string>();
  for (const [i, unit] of m.denomUnits.entries()) {
    if (i === 0) {
      if (unit.denom !== m.base)
        throw new Error(`metadata's first denomination unit must be the one with base denom '${m.base}'`);
      if (unit.exponent !== 0) throw new Error(`the exponent for base denomination unit ${m.base} must be 0`);
    } else if (exponent >= unit.exponent) {
      throw new Error("the denomination units must be sorted in ascending order");
    }
    exponent = unit.exponent;
    if (units.has(unit.denom)) throw new Error(`duplicate denomination unit ${unit.denom}`);
    if (unit.denom === m.display) hasDisplay = true;
    if (!denomOk(unit.denom)) throw new Error(`invalid denom unit: invalid denom: ${unit.denom}`);
    const aliases = new Set<string>();
    for (const alias of unit.aliases) {
      if (!denomOk(alias)) throw new Error(`invalid denom alias: invalid denom: ${alias}`);
      if (aliases.has(alias)) throw new Error(`duplicated denomination unit alias ${alias}`);
      aliases.add(alias);
    }
    units.add(unit.denom);
  }
  if (!hasDisplay)
    throw new Error(`metadata must contain a denomination unit with display denom '${m.display}'`);
}
