/**
 * How the worker runs its job and inference processes, which the framework forks with the
 * worker's `execArgv` (agents 1.9: one process per call, no thread executor). Measured with
 * `npm run bench -- agent` on a 2-core machine:
 * - Used: `--max-semi-space-size=2`, a young generation of 2 MiB instead of V8's default 16
 *   (132 → 111 MiB PSS after import), no measurable cost to the VAD's CPU.
 * - Measured, not used (CANDIDATE_FLAGS, the bench runs its calls with both): `--optimize-for-size`,
 *   `--v8-pool-size=1` and MALLOC_ARENA_MAX=2 took 8-13 MiB off a warm process's private memory,
 *   but none off a process holding a call (115 MiB PSS either way), and the VAD cost 1.2-2.2× the
 *   CPU in three runs out of three.
 * - Not usable: `--lite-mode` and `--jitless` turn WebAssembly off, which Node's fetch (undici)
 *   needs, and cost the audio path its compiled code; a low `--max-old-space-size` would end a
 *   long call's process when its history grows.
 */
export const JOB_PROCESS_FLAGS = ['--max-semi-space-size=2']

/** The lighter settings the bench compares against (see above). */
export const CANDIDATE_FLAGS = [...JOB_PROCESS_FLAGS, '--optimize-for-size', '--v8-pool-size=1']
export const CANDIDATE_ENV = { MALLOC_ARENA_MAX: '2' } as const

/** Adds the flags to this process's `execArgv`, which the framework's forks inherit. */
export const applyJobProcessSettings = () => {
  for (const flag of JOB_PROCESS_FLAGS) if (!process.execArgv.includes(flag)) process.execArgv.push(flag)
}
