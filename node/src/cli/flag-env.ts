/**
 * The environment variable that stands in for a flag, named as Cosmos names it: the binary's name and the
 * flag in upper case, `-` and `.` as `_` (`chaind` + `--minimum-gas-prices` = `CHAIND_MINIMUM_GAS_PRICES`).
 * Cosmos takes the name of the executable file; we take the app's name, so a renamed file keeps its variables.
 */
export function flagEnvName(appName: string, flag: string): string {
  return `${appName}_${flag}`.toUpperCase().replace(/[-.]/g, "_");
}

/**
 * A flag's value with Cosmos' precedence: the flag when given, else its environment variable when set and not
 * empty (viper ignores empty ones), else undefined so the config file decides.
 */
export function flagOrEnv(
  given: string | undefined,
  appName: string,
  flag: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (given !== undefined) return given;
  const fromEnv = env[flagEnvName(appName, flag)];
  return fromEnv === undefined || fromEnv === "" ? undefined : fromEnv;
}
