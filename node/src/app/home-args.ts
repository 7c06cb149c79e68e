/** The flag every command has: the home folder whose client.toml and keyring a client command uses. */
export interface HomeArgs {
  home: string;
}
