import * as echarts from "echarts";

const c = echarts.init(null, null, { renderer: "svg", ssr: true, width: 600, height: 300 });
c.setOption({
  animation: false,
  xAxis: { type: "category", data: ["a", "b"] },
  yAxis: { type: "log" },
  series: [
    { type: "bar", data: [1.5, 20] },
    { type: "scatter", symbol: "rect", symbolSize: [30, 2], data: [1, 3] },
  ],
});
const s = c.renderToSVGString();
console.log(s.length, s.slice(0, 200));
