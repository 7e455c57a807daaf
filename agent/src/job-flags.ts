/**
 * How the worker runs its job and inference processes, which the framework forks with the
 * worker's `execArgv` and environment (agents 1.9: one process per call, no thread executor).
 * Measured with `npm run bench -- agent`, a job process after its imports and prewarm (USS,
 * private memory, on a 2-core machine):
 * - `--max-semi-space-size=2`: a young generation of 2 MiB instead of V8's default 16 (132 → 111
 *   MiB PSS).
 * - `--optimize-for-size`: V8 trades some speed for a smaller heap (about 6 MiB less committed).
 * - `--v8-pool-size=1`: one V8 platform thread for background compiling and GC in place of one
 *   per core: each thread's malloc arena and stack are private memory (about 5 MiB).
 * - MALLOC_ARENA_MAX=2: glibc's malloc stops growing an arena per thread (the native LiveKit,
 *   VAD and libvips threads).
 * The audio path is native (Opus, resampling, the VAD); the bench prints the CPU a turn and a live
 * audio stream cost with and without these flags.
 * Not used: `--lite-mode` turns WebAssembly off, and Node's fetch (undici) needs it; `--jitless`
 * likewise, and costs the audio path its compiled code; a low `--max-old-space-size` would end a
 * long call's process when its history grows.
 */
export const JOB_PROCESS_FLAGS = ['--max-semi-space-size=2', '--optimize-for-size', '--v8-pool-size=1']
export const JOB_PROCESS_ENV = { MALLOC_ARENA_MAX: '2' } as const

/** Applies both to this process's `execArgv` and environment, which its forks inherit. */
export const applyJobProcessSettings = () => {
  for (const flag of JOB_PROCESS_FLAGS) if (!process.execArgv.includes(flag)) process.execArgv.push(flag)
  for (const [name, value] of Object.entries(JOB_PROCESS_ENV)) process.env[name] ??= value
}
