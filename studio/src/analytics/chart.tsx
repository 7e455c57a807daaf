import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'

export type Series = { label: string; values: Array<number | null>; isAccent?: boolean }

/** A colour of the page's theme (light or dark), read from an element styled with it. */
const colourOf = (host: HTMLElement, className: string) => {
  const probe = document.createElement('span')
  probe.className = className
  host.append(probe)
  const colour = getComputedStyle(probe).color
  probe.remove()
  return colour
}

/**
 * One uPlot line chart over days. The canvas is drawn for sighted users; the figure's caption and
 * the table beside it (in AnalyticsPage) carry the same numbers for everyone else.
 */
export const DayChart = ({ days, series, label }: { days: string[]; series: Series[]; label: string }) => {
  const host = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = host.current
    if (!element) return
    const accent = colourOf(element, 'chart-accent')
    const muted = colourOf(element, 'chart-muted')
    const text = getComputedStyle(element).color
    const axis = { stroke: text, grid: { stroke: muted, width: 0.5 }, ticks: { stroke: muted } }
    const width = () => Math.max(240, element.clientWidth)
    const plot = new uPlot(
      {
        width: width(),
        height: 200,
        legend: { show: series.length > 1 },
        scales: { x: { time: true } },
        axes: [axis, axis],
        series: [
          {},
          ...series.map((one, index) => ({
            label: one.label,
            stroke: one.isAccent === false || index > 0 ? muted : accent,
            width: 2,
            dash: index > 0 ? [6, 4] : undefined,
            spanGaps: false,
          })),
        ],
      },
      [days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000), ...series.map((one) => one.values)],
      element,
    )
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 200 }))
    resize.observe(element)
    return () => {
      resize.disconnect()
      plot.destroy()
    }
  }, [days, series])
  return <div class="chart" ref={host} role="img" aria-label={label} />
}
