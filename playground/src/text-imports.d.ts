// `import text from './file.json?text'`: the file's text, as scripts/build-playground.mjs loads it.
declare module '*?text' {
  const text: string;
  export default text;
}
