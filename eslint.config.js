// ESLint for the report's JavaScript (workflow/papertopics/report/assets) and its tests (tests/js).
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: [".venv/", "results/", ".snakemake/", ".test/", "bench/scratch/"] },
  js.configs.recommended,
  {
    files: ["workflow/papertopics/report/assets/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser, ...globals.worker, Plotly: "readonly" },
    },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      "prefer-const": "error",
      "no-var": "error",
      eqeqeq: "error",
    },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
  },
];
