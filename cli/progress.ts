import { SingleBar, Presets } from 'cli-progress';

/** A progress bar on stderr when it is a terminal (and a total is known); otherwise nothing. */
export function makeProgress(total: number | undefined, unit: string) {
  if (total === undefined || !process.stderr.isTTY) return { tick() {}, set(_n: number, _total?: number) {}, stop() {} };
  const bar = new SingleBar({ stream: process.stderr, format: `{bar} {percentage}% | {value}/{total} ${unit} | {speed} ${unit}/s | ETA {eta_formatted}`, hideCursor: true }, Presets.shades_classic);
  const started = Date.now();
  let value = 0;
  bar.start(total, 0, { speed: 0 });
  const speed = () => Math.round(value / Math.max(0.001, (Date.now() - started) / 1000));
  return {
    tick() {
      value++;
      bar.update(value, { speed: speed() });
    },
    set(n: number, newTotal?: number) {
      value = n;
      if (newTotal !== undefined) bar.setTotal(newTotal);
      bar.update(value, { speed: speed() });
    },
    stop() {
      bar.stop();
    },
  };
}
