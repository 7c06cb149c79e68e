/** config.toml byte for byte as `cosmovisor init` 1.6 writes it (go-toml v2 over its Config struct). */
export function cosmovisorConfigToml(home: string, name: string): string {
  return [
    `daemon_home = '${home}'`,
    `daemon_name = '${name}'`,
    "daemon_allow_download_binaries = false",
    "daemon_download_must_have_checksum = false",
    "daemon_restart_after_upgrade = true",
    "daemon_restart_delay = 0",
    "daemon_shutdown_grace = 0",
    "daemon_poll_interval = 300000000",
    "unsafe_skip_backup = false",
    `daemon_data_backup_dir = '${home}'`,
    "daemon_preupgrade_max_retries = 0",
    "daemon_grpc_address = 'localhost:9090'",
    "cosmovisor_disable_logs = false",
    "cosmovisor_color_logs = true",
    "cosmovisor_timeformat_logs = 'kitchen'",
    "cosmovisor_custom_preupgrade = ''",
    "cosmovisor_disable_recase = false",
    "",
  ].join("\n");
}
