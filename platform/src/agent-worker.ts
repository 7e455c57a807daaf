/** The voice agent worker's exit code for a bad configuration: starting it again would fail the same way. */
export const AGENT_CONFIG_EXIT_CODE = 78
