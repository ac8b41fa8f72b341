// Stand-in for https://unpkg.com/react@18 (tests/compat): the createElement a UMD build puts on window.
window.React = {
  createElement(type, props, ...children) {
    return typeof type === "function" ? type(props || {}) : { type, props: props || {}, children: children.flat() };
  },
};
