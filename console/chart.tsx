// A bar chart in plain SVG: no library, readable by a screen reader (a title, and the numbers as
// a table beside it).
export interface Bar {
  label: string;
  value: number;
  className?: string;
}

export function BarChart({ title, bars, height = 160 }: { title: string; bars: Bar[]; height?: number }) {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const w = Math.max(24, Math.min(60, Math.floor(720 / Math.max(1, bars.length))));
  const width = bars.length * w + 40;
  const id = `chart-${title.replace(/\W+/g, '-')}`;
  return (
    <figure class="chart" aria-labelledby={id}>
      <figcaption id={id}>{title}</figcaption>
      <svg width={width} height={height + 40} role="img" aria-label={`${title}: ${bars.map((b) => `${b.label} ${b.value}`).join(', ')}`}>
        {bars.map((b, i) => {
          const h = Math.round((b.value / max) * height);
          return (
            <g key={b.label}>
              <rect class={`bar ${b.className ?? ''}`} x={20 + i * w + 2} y={height - h + 10} width={w - 4} height={h}>
                <title>
                  {b.label}: {b.value}
                </title>
              </rect>
              <text x={20 + i * w + w / 2} y={height - h + 6} text-anchor="middle" font-size="11">
                {b.value}
              </text>
              <text x={20 + i * w + w / 2} y={height + 26} text-anchor="middle" font-size="10">
                {b.label.length > 6 ? b.label.slice(-5) : b.label}
              </text>
            </g>
          );
        })}
      </svg>
      <table class="visually-hidden">
        <tbody>
          {bars.map((b) => (
            <tr key={b.label}>
              <th scope="row">{b.label}</th>
              <td>{b.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
