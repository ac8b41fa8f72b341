export const topping = "mozzarella";
