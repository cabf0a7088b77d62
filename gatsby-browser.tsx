import "slick-carousel/slick/slick.css";

export { wrapPageElement } from "./src/wrap-page-element";
