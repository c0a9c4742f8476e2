// What every plotly figure of the page is drawn with. Nothing in a figure's tool bar may send it
// anywhere: plotly's "Share chart" button uploads the figure to Plotly Cloud (its server's address
// is a default of plotly's config) and its logo links to plotly.com; both are switched off here,
// and the mode bar's own image download gives twice the figure's size on screen.
export const PLOT_CONFIG = Object.freeze({
  displaylogo: false,
  showSendToCloud: false,
  plotlyServerURL: "",
  modeBarButtonsToRemove: ["sendChartToCloud"],
  toImageButtonOptions: { scale: 2 },
});
