import { deferAppScripts } from "../src/build/defer-app-scripts";

const page = `<html><head></head><body><div id="___gatsby"></div><script id="gatsby-chunk-mapping">/*map*/</script><script src="/webpack-runtime-1.js" async></script><script src="/framework-2.js" async></script><script src="/app-3.js" async></script></body></html>`;

describe("deferAppScripts", () => {
  it("replaces the async app scripts with one loader that adds them after the first paint, in order", () => {
    const html = deferAppScripts(page);
    expect(html).not.toMatch(/<script src=/);
    expect(html.match(/requestAnimationFrame/g)).toHaveLength(1);
    expect(html).toContain('["/webpack-runtime-1.js","/framework-2.js","/app-3.js"]');
    expect(html).toContain('<script id="gatsby-chunk-mapping">/*map*/</script>');
  });

  it("leaves a page without app scripts alone", () => {
    const plain = "<html><body><p>Static</p></body></html>";
    expect(deferAppScripts(plain)).toBe(plain);
  });

  it("runs the loader's scripts when executed", () => {
    const html = deferAppScripts(page);
    const code = /<script>(requestAnimationFrame[\s\S]*?)<\/script>/.exec(html)![1]!;
    jest.useFakeTimers();
    const frame = jest.spyOn(window, "requestAnimationFrame").mockImplementation((callback) => {
      callback(0);
      return 0;
    });
    new Function(code)();
    jest.runAllTimers();
    expect([...document.body.querySelectorAll("script")].map((script) => script.getAttribute("src"))).toEqual([
      "/webpack-runtime-1.js",
      "/framework-2.js",
      "/app-3.js",
    ]);
    frame.mockRestore();
    jest.useRealTimers();
  });
});
