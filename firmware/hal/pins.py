"""GPIO numbers of the Tengen board (Raspberry Pi Pico): generated, do not edit.

Generated from hardware/pinmap.csv by hardware/gen_pins.py; change the CSV and run
``python3 hardware/gen_pins.py``. tests/host/test_pinmap.py fails when this file is stale.
Names starting with PICO_ are the Pico board's own functions (GP24, GP25, GP29), not ours.
"""

from micropython import const

UART0_TX = const(0)  # out: DBG_TX
VOICE_PWM = const(1)  # pwm: VOICE_PWM
MUX_S0 = const(2)  # pio-out: MUX_S0
MUX_S1 = const(3)  # pio-out: MUX_S1
MUX_S2 = const(4)  # pio-out: MUX_S2
ROW_A0 = const(5)  # pio-out: ROW_A0
ROW_A1 = const(6)  # pio-out: ROW_A1
ROW_A2 = const(7)  # pio-out: ROW_A2
ROW_B3 = const(8)  # pio-out: ROW_B3
ROW_B4 = const(9)  # pio-out: ROW_B4
PADDLE_L = const(10)  # in: BTN_PADDLE_L
PADDLE_R = const(11)  # in: BTN_PADDLE_R
BTN_PAUSE = const(12)  # in: BTN_PAUSE
BTN_MODE = const(13)  # in: BTN_MODE
I2C1_SDA = const(14)  # io: I2C1_SDA
I2C1_SCL = const(15)  # io: I2C1_SCL
LCD_CS_L = const(16)  # out: LCD_CS_L
LCD_CS_R = const(17)  # out: LCD_CS_R
LCD_WR = const(18)  # out: LCD_WR
LCD_DATA = const(19)  # out: LCD_DATA
BTN_PLUS = const(20)  # in: BTN_PLUS
BTN_MINUS = const(21)  # in: BTN_MINUS
BUZZER = const(22)  # pwm: BUZZER
VOICE_EN = const(23)  # out: VOICE_EN
PICO_VBUS_SENSE = const(24)  # in: VBUS_SENSE
PICO_LED = const(25)  # out: LED
HALL_ADC0 = const(26)  # analog: COL_0_7
HALL_ADC1 = const(27)  # analog: COL_8_15
HALL_ADC2 = const(28)  # analog: COL_16_18
PICO_VSYS_ADC = const(29)  # analog: VSYS_DIV3

# Derived: the PIO steps SCAN_OUT_COUNT consecutive pins from SCAN_OUT_BASE (mux bits,
# then row address bits, then the two bank bits); the Hall columns are read on ADC
# inputs HALL_ADC_FIRST .. HALL_ADC_FIRST + HALL_ADC_COUNT - 1 (GPIO 26 + channel).
SCAN_OUT_BASE = const(2)
SCAN_OUT_COUNT = const(8)
HALL_ADC_FIRST = const(0)
HALL_ADC_COUNT = const(3)
