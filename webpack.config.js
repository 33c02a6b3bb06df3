// @ts-check
// Builds the add-in: the custom functions and the task pane, which share one page and runtime
// (manifest.xml), into dist/ (`npm run build`), or serves them on https://localhost:3000
// (`npm run dev-server`, which `npm start` runs beside the relay).
//
// Production URLs: dist/manifest.xml keeps the https://localhost:3000 URLs of the source. The relay
// serves dist/ and rewrites those URLs to RELAY_PUBLIC_URL when it answers GET /manifest.xml
// (src/relay/addin/addin-files.ts), so one build works wherever it is deployed and there is one rewrite.
const path = require("node:path");
const CopyWebpackPlugin = require("copy-webpack-plugin");
const CustomFunctionsMetadataPlugin = require("custom-functions-metadata-plugin");
const HtmlWebpackPlugin = require("html-webpack-plugin");

const DEV_SERVER_PORT = 3000;

/**
 * A certificate Office trusts: office-addin-dev-certs installs its CA in the system store (it asks
 * for sudo or the keychain password once). Where that cannot happen — CI, no sudo, no store — the
 * dev server falls back to webpack's own self-signed certificate, which browsers warn about and
 * Office refuses until it is trusted by hand.
 * @returns {Promise<import("webpack-dev-server").ServerConfiguration>}
 */
async function httpsServer() {
  const fallback = { type: "https" };
  if (process.env.CI) {
    console.warn("[dev-server] CI is set: using webpack's self-signed certificate instead of office-addin-dev-certs.");
    return fallback;
  }
  try {
    const devCerts = require("office-addin-dev-certs");
    const { ca, cert, key } = await devCerts.getHttpsServerOptions();
    return { type: "https", options: { ca, cert, key } };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    console.warn(
      [
        `[dev-server] Could not install the Office development certificate (${reason}).`,
        "[dev-server] Serving with webpack's self-signed certificate instead: open https://localhost:3000/taskpane.html",
        "[dev-server] once and accept the warning, or run `npx office-addin-dev-certs install` (needs sudo or an admin prompt), then restart.",
      ].join("\n"),
    );
    return fallback;
  }
}

/**
 * @param {Record<string, unknown>} env
 * @param {{ mode?: string }} argv
 * @returns {Promise<import("webpack").Configuration>}
 */
module.exports = async (env, argv) => {
  const dev = argv.mode === "development";
  return {
    mode: dev ? "development" : "production",
    // Paths below are relative to this file, whatever directory webpack is run from.
    context: __dirname,
    // Excel's runtimes are evergreen engines (WebView2, WKWebView, browsers for Excel on the web).
    target: ["web", "es2020"],
    // Source maps only in development: dist/ is served to users by the relay.
    devtool: dev ? "source-map" : false,
    entry: {
      functions: "./functions/functions.ts",
      taskpane: "./taskpane/taskpane.ts",
    },
    output: {
      path: path.resolve(__dirname, "dist"),
      // Stable names: the manifest points at functions.js.
      filename: "[name].js",
      clean: true,
    },
    resolve: {
      extensions: [".ts", ".js"],
    },
    module: {
      rules: [
        {
          test: /\.ts$/,
          exclude: /node_modules/,
          loader: "ts-loader",
          // Type checking is `tsc -p tsconfig.web.json`'s job; here it would only slow the build.
          options: { transpileOnly: true, configFile: "tsconfig.web.json" },
        },
      ],
    },
    plugins: [
      // functions.json from the JSDoc in functions.ts; the plugin also appends the CustomFunctions.associate calls.
      new CustomFunctionsMetadataPlugin({
        // Absolute: the plugin resolves against the working directory, not webpack's context.
        input: path.resolve(__dirname, "functions/functions.ts"),
        output: "functions.json",
      }),
      // Shared runtime: one page loads both bundles, so the functions and the pane share state.
      new HtmlWebpackPlugin({
        filename: "taskpane.html",
        template: "./taskpane/taskpane.html",
        chunks: ["functions", "taskpane"],
      }),
      new CopyWebpackPlugin({
        patterns: [
          { from: "assets/*.png", to: "assets/[name][ext]" },
          { from: "manifest.xml", to: "manifest.xml" },
          { from: "taskpane/taskpane.css", to: "taskpane.css" },
          { from: "taskpane/help.html", to: "help.html" },
        ],
      }),
    ],
    performance: {
      // The bundles carry zod and the contract; a few hundred KiB is expected, a megabyte is not.
      maxAssetSize: 1024 * 1024,
      maxEntrypointSize: 1024 * 1024,
    },
    watchOptions: {
      ignored: ["**/node_modules", "**/lib", "**/dist"],
    },
    // Only `webpack serve` reads this; the certificate is looked up only then, never for a build.
    devServer: env.WEBPACK_SERVE
      ? {
          host: "localhost",
          port: DEV_SERVER_PORT,
          server: await httpsServer(),
          // Public build output only, no credentials: Excel on the web fetches functions.json and the
          // icons from its own origin, and the relay (another origin in development) may read them too.
          headers: { "Access-Control-Allow-Origin": "*" },
          static: false,
          // Hot module replacement would re-run functions.ts and register the functions twice; a full reload does not.
          hot: false,
          liveReload: true,
          client: { overlay: { errors: true, warnings: false } },
        }
      : undefined,
  };
};
