"""The parts of the Tengen board: what to order, how each is drawn, and its datasheet figures.

One entry per kind of part. The schematic (``circuit.py``) places parts by these keys, the BOM
(``bom.py``) takes the manufacturer, part number and footprint from here, and the budgets
(``budgets.py``) compute power, ADC range and scan timing from the ``figures``, each with the
datasheet it comes from. A figure marked ``verify`` is the best figure found but not read from
the part's own datasheet: the budgets use it and say so.

Symbols and footprints are KiCad's own libraries (Debian's ``kicad-symbols`` and
``kicad-footprints``, KiCad 6). Parts those libraries lack (the TMAG5253, the AH49E, the face
module) have their pins here, from their datasheets; their footprints are still KiCad's.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Figure:
    """A datasheet figure: value in SI-prefixed ``unit``, the condition, and its source."""

    value: float
    unit: str
    source: str
    verify: bool = False


@dataclass(frozen=True)
class Spec:
    """One kind of part: symbol (``lib``, ``symbol``) or its own ``pins``, and what to order."""

    ref: str  # reference prefix
    lib: str | None
    symbol: str
    footprint: str
    value: str
    manufacturer: str
    mpn: str
    description: str
    datasheet: str = ""
    pins: tuple = ()  # ((number, name, kind), ...) for a symbol KiCad's libraries lack
    figures: dict = field(default_factory=dict)


# Pin kinds of the parts drawn here (SKiDL's pin types).
IN, OUT, BIDIR, PASSIVE, PWR_IN, OPEN = (
    "input",
    "output",
    "bidirectional",
    "passive",
    "pwrin",
    "tri",
)

R0402 = "Resistor_SMD:R_0402_1005Metric"
C0402 = "Capacitor_SMD:C_0402_1005Metric"
C0805 = "Capacitor_SMD:C_0805_2012Metric"
# KiCad 7 and later name the TMAG5253's X2SON-4 (TI DMR) land pattern; Debian bookworm's
# KiCad 6 library has none, so the footprint check lists it (NEWER_FOOTPRINTS).
TMAG_FOOTPRINT = "Package_SON:Texas_X2SON-4-1EP_1.1x1.4mm_P0.5mm_EP0.8x0.6mm"
NEWER_FOOTPRINTS = {TMAG_FOOTPRINT: "KiCad 7+ (TI DMR package); not in KiCad 6"}


def ohms(value):
    """A resistor value as the catalogue writes it ("4k7", "1M", "27R") in ohms."""
    for unit, scale in (("R", 1), ("k", 1e3), ("M", 1e6)):
        if unit in value:
            whole, _, frac = value.partition(unit)
            return float(whole + "." + (frac or "0")) * scale
    return float(value)


def resistor(value, mpn):
    """A 1 % 0402 thick-film resistor (Yageo RC0402FR-07 series)."""
    return Spec("R", "Device", "R", R0402, value, "Yageo", mpn, f"resistor {value} 1% 0402")


def capacitor(value, mpn, dielectric="X7R", footprint=C0402, volts=16):
    """A Murata ceramic capacitor."""
    return Spec(
        "C", "Device", "C", footprint, value, "Murata", mpn,
        f"capacitor {value} {volts} V {dielectric}",
    )  # fmt: skip


PARTS = {
    # --- the controller: an RP2040 as on the Raspberry Pi Pico --------------------------------
    "rp2040": Spec(
        "U",
        "MCU_RaspberryPi",
        "RP2040",
        "Package_DFN_QFN:QFN-56-1EP_7x7mm_P0.4mm_EP3.2x3.2mm",
        "RP2040",
        "Raspberry Pi",
        "RP2040",
        "microcontroller, dual Cortex-M0+, 12-bit ADC",
        "https://datasheets.raspberrypi.com/rp2040/rp2040-datasheet.pdf",
        figures={
            "i_run": Figure(
                25e-3,
                "A",
                "research §5: RP2040 + flash running, 20-30 mA (the RP2040 "
                "datasheet's §5.4 values were not retrieved)",
                True,
            ),
            "adc_full_scale": Figure(3.3, "V", "RP2040 datasheet §4.9: the ADC reads 0..ADC_AVDD"),
            "adc_avdd_max": Figure(3.63, "V", "RP2040 datasheet §5.3: ADC_AVDD 1.62..3.63 V"),
            "v_pin_max": Figure(
                3.6,
                "V",
                "IOVDD + 0.3 V at 3.3 V: an ADC input must not exceed IOVDD (cnblogs "
                "FreakEmbedded, quoting the RP2040 datasheet); §5.5's table not retrieved",
                True,
            ),
            "adc_slot": Figure(4e-6, "s", "firmware/hal/rp2040.py SLOT_CYCLES at 48 MHz"),
            "adc_conversion": Figure(2e-6, "s", "RP2040 datasheet §4.9: 96 cycles of 48 MHz"),
            "adc_input_c": Figure(
                1e-12, "F", "RP2040 datasheet §4.9.4: sample capacitor (order of 1 pF)", True
            ),
        },
    ),  # fmt: skip
    "flash": Spec(
        "U",
        "Memory_Flash",
        "W25Q32JVSS",
        "Package_SO:SOIC-8_5.23x5.23mm_P1.27mm",
        "W25Q16JVSSIQ",
        "Winbond",
        "W25Q16JVSSIQ",
        "2 MB QSPI flash (the Pico's size: the TENGEN_PICO image's layout)",
        "https://www.winbond.com/resource-files/w25q16jv%20spi%20revd%2008122016.pdf",
        figures={
            "i_standby": Figure(
                10e-6,
                "A",
                "W25Q16JV datasheet §9.4 ICC1 typ. (not retrieved); XIP reads are in "
                "the RP2040's running figure",
                True,
            )
        },
    ),  # fmt: skip
    "xtal": Spec(
        "Y",
        "Device",
        "Crystal_GND24",
        "Crystal:Crystal_SMD_3225-4Pin_3.2x2.5mm",
        "12MHz",
        "Abracon",
        "ABM8-272-T3",
        "12 MHz crystal, 10 pF load (RP2040 design guide)",
    ),  # fmt: skip
    "ldo": Spec(
        "U",
        "Regulator_Linear",
        "AP2112K-3.3",
        "Package_TO_SOT_SMD:SOT-23-5",
        "AP2112K-3.3",
        "Diodes Inc.",
        "AP2112K-3.3TRG1",
        "3.3 V 600 mA LDO from VSYS",
        "https://www.diodes.com/assets/Datasheets/AP2112.pdf",
        figures={
            "i_max": Figure(
                0.6,
                "A",
                "AP2112 datasheet: output current 600 mA (the Diodes sheet was not "
                "retrieved; the MSKSEMI AP2112K-3.3TRG1(MS) clone's sheet says 600 mA)",
                True,
            ),
            "i_q": Figure(55e-6, "A", "AP2112 datasheet: quiescent typ. (not retrieved)", True),
            "dropout": Figure(
                0.25,
                "V",
                "AP2112 datasheet: dropout 250 mV at 600 mA (not retrieved; the "
                "clone's sheet says 320 mV)",
                True,
            ),
        },
    ),  # fmt: skip
    "charger": Spec(
        "U",
        "Battery_Management",
        "MCP73831-2-OT",
        "Package_TO_SOT_SMD:SOT-23-5",
        "MCP73831-2",
        "Microchip",
        "MCP73831T-2ACI/OT",
        "1S Li-ion charger from USB",
        "https://ww1.microchip.com/downloads/en/DeviceDoc/MCP73831-Family-Data-Sheet-DS20001984H.pdf",
        figures={
            "k_prog": Figure(
                1000.0,
                "V",
                "MCP73831 datasheet §5.1.2: I_REG = 1000 V / R_PROG, the commonly "
                "quoted form (the equation's text was not retrieved)",
                True,
            )
        },
    ),  # fmt: skip
    "schottky": Spec(
        "D",
        "Device",
        "D_Schottky",
        "Diode_SMD:D_SOD-123",
        "MBR0520",
        "onsemi",
        "MBR0520LT1G",
        "Schottky 20 V 0.5 A: USB and battery OR-ed into VSYS",
        figures={"vf": Figure(0.3, "V", "MBR0520L datasheet: VF at 100 mA", True)},
    ),  # fmt: skip
    "usb_c": Spec(
        "J",
        "Connector",
        "USB_C_Receptacle_USB2.0",
        "Connector_USB:USB_C_Receptacle_HRO_TYPE-C-31-M-12",
        "USB-C",
        "HRO",
        "TYPE-C-31-M-12",
        "USB 2.0 Type-C receptacle: the PC link and charging",
    ),  # fmt: skip
    "bat_conn": Spec(
        "J",
        "Connector_Generic",
        "Conn_01x02",
        "Connector_JST:JST_PH_B2B-PH-K_1x02_P2.00mm_Vertical",
        "BAT",
        "JST",
        "B2B-PH-K-S(LF)(SN)",
        "battery connector (JST PH, 2 pins)",
    ),  # fmt: skip
    "power_switch": Spec(
        "SW",
        "Switch",
        "SW_SPDT",
        "Button_Switch_SMD:SW_SPDT_CK-JS102011SAQN",
        "POWER",
        "C&K",
        "JS102011SAQN",
        "power switch: the battery to VSYS",
    ),  # fmt: skip
    "led": Spec(
        "D",
        "Device",
        "LED",
        "LED_SMD:LED_0603_1608Metric",
        "green",
        "Lite-On",
        "LTST-C191KGKT",
        "status LED (GP25, as on the Pico)",
        figures={"i": Figure(2e-3, "A", "(3.3 V - 2.0 V) / 470 ohm, while lit")},
    ),  # fmt: skip
    "button": Spec(
        "SW",
        "Switch",
        "SW_Push",
        "Button_Switch_THT:SW_TH_Tactile_Omron_B3F-10xx",
        "key",
        "Omron",
        "B3F-1000",
        "soft key 6x6 mm (pause, mode, +, -, BOOTSEL)",
    ),  # fmt: skip
    "paddle": Spec(
        "SW",
        "Switch",
        "SW_Push",
        "Button_Switch_THT:SW_PUSH-12mm",
        "paddle",
        "Omron",
        "B3F-4055",
        "clock paddle switch 12x12 mm, under the paddle lever",
    ),  # fmt: skip
    "buzzer": Spec(
        "BZ",
        "Device",
        "Buzzer",
        "Buzzer_Beeper:Buzzer_TDK_PS1240P02BT_D12.2mm_H6.5mm",
        "piezo",
        "TDK",
        "PS1240P02BT",
        "passive piezo 12 mm: the clock's pips (PWM)",
        figures={
            "i": Figure(
                11e-3,
                "A",
                "bound while sounding: CUI CPE-827 piezo, 11 mA max at 10 Vp-p 4.5 kHz "
                "(a different part; the PS1240's own figure not found)",
                True,
            )
        },
    ),  # fmt: skip
    "npn": Spec(
        "Q",
        "Transistor_BJT",
        "MMBT3904",
        "Package_TO_SOT_SMD:SOT-23",
        "MMBT3904",
        "onsemi",
        "MMBT3904LT1G",
        "NPN: the piezo driver",
    ),  # fmt: skip
    "rtc": Spec(
        "U",
        "Timer_RTC",
        "PCF8563T",
        "Package_SO:SOIC-8_3.9x4.9mm_P1.27mm",
        "PCF8563T",
        "NXP",
        "PCF8563T/F4,118",
        "real-time clock, I2C 0x51, coin-cell backed",
        "https://www.nxp.com/docs/en/data-sheet/PCF8563.pdf",
        figures={
            "i": Figure(0.25e-6, "A", "PCF8563 datasheet Rev 04 (features): 0.25 uA typ. at 3 V"),
            "i_max": Figure(0.55e-6, "A", "PCF8563 datasheet Rev 04: IDD max 550 nA at 5 V"),
        },
    ),  # fmt: skip
    "xtal32k": Spec(
        "Y",
        "Device",
        "Crystal",
        "Crystal:Crystal_SMD_3215-2Pin_3.2x1.5mm",
        "32.768kHz",
        "Abracon",
        "ABS07-32.768KHZ-7-T",
        "32.768 kHz crystal, 7 pF (PCF8563)",
    ),  # fmt: skip
    "coin_cell": Spec(
        "BT",
        "Device",
        "Battery_Cell",
        "Battery:BatteryHolder_Keystone_3001_1x12mm",
        "CR1220",
        "Keystone",
        "3001",
        "CR1220 holder: the RTC's backup cell",
    ),  # fmt: skip
    "face": Spec(
        "J",
        "Connector_Generic",
        "Conn_01x06",
        "Connector_PinHeader_2.54mm:PinHeader_1x06_P2.54mm_Vertical",
        "FACE",
        "Amphenol",
        "68002-106HLF",
        "header for an HT1621 6-digit LCD module (CS WR DATA GND VCC LED)",
        figures={
            "i": Figure(
                0.3e-3,
                "A",
                "estimate: HT1621 at 3 V, LCD on, RC oscillator (the datasheet's "
                "operating current not found)",
                True,
            ),
            "v_min": Figure(2.4, "V", "HT1621 datasheet Rev 3.21: supply 2.4..5.2 V"),
        },
    ),  # fmt: skip
    "debug": Spec(
        "J",
        "Connector_Generic",
        "Conn_01x03",
        "Connector_PinHeader_2.54mm:PinHeader_1x03_P2.54mm_Vertical",
        "SWD",
        "Amphenol",
        "68002-103HLF",
        "SWD debug header (SWCLK GND SWDIO)",
    ),  # fmt: skip
    "uart": Spec(
        "J",
        "Connector_Generic",
        "Conn_01x02",
        "Connector_PinHeader_2.54mm:PinHeader_1x02_P2.54mm_Vertical",
        "UART",
        "Amphenol",
        "68002-102HLF",
        "UART0 debug log, transmit only (TX GND): GPIO1, its receive pin, is the voice's PWM",
    ),  # fmt: skip
    # --- the voice: PWM through an RC low-pass into a class-D amp, a speaker on a plug --------
    "voice_amp": Spec(
        "U",
        "Amplifier_Audio",
        "PAM8302AAS",
        "Package_SO:MSOP-8_3x3mm_P0.65mm",
        "PAM8302A",
        "Diodes Inc.",
        "PAM8302AASCR",
        "2.5 W filterless class-D mono amplifier, MSOP-8: the voice (shut down between phrases)",
        "https://www.diodes.com/assets/Datasheets/PAM8302A.pdf",
        figures={
            "i_q": Figure(
                4e-3,
                "A",
                "PAM8302A datasheet (DS36436): quiescent current 4 mA typ., no load (as "
                "summarised by sheetsdata.com; the table's supply condition not retrieved)",
                True,
            ),
            "i_sd": Figure(
                1e-6,
                "A",
                "shutdown current < 1 uA: the PAM830x family's figure (PAM8304 datasheet); "
                "the PAM8302A's own row not retrieved",
                True,
            ),
            "gain": Figure(
                23.5,
                "dB",
                "PAM8302A datasheet p. 7, Gv = 20 log(150k / (10k + R_ext)): 15 V/V with no "
                "external input resistor (as quoted by a public part model; Adafruit's "
                "breakout page rounds it to 24 dB)",
                True,
            ),
            "r_in": Figure(
                10e3,
                "ohm",
                "the same equation: an internal 10 kohm input resistor into the amplifier's "
                "virtual ground, the input resistance the low-pass's last node sees",
                True,
            ),
            "efficiency": Figure(
                0.88,
                "",
                "PAM8302A datasheet, features: efficiency up to 88 % (at watts: used with the "
                "quiescent current counted apart)",
                True,
            ),
            "v_min": Figure(2.0, "V", "PAM8302A datasheet, features: supply 2.0..5.5 V"),
            "v_max": Figure(5.5, "V", "PAM8302A datasheet, features: supply 2.0..5.5 V"),
            "f_sw": Figure(
                250e3, "Hz", "PAM8302A datasheet: oscillator 250 kHz typ. (sheetsdata.com)", True
            ),
        },
    ),  # fmt: skip
    "speaker_conn": Spec(
        "J",
        "Connector_Generic",
        "Conn_01x02",
        "Connector_Molex:Molex_PicoBlade_53047-0210_1x02_P1.25mm_Vertical",
        "SPEAKER",
        "Molex",
        "53047-0210",
        "speaker connector (PicoBlade 1.25 mm, 2 pins): not the battery's JST PH, no mix-up",
    ),  # fmt: skip
    # The speaker itself is a kit item on its leads (parts.kit()); its figures are here, for
    # budgets.py's voice budget. Any 8 ohm speaker of >= 75 dB/W at 1 m and >= 0.2 W fits.
    "speaker": Spec(
        "LS",
        None,
        "Speaker",
        "",
        "8R",
        "CUI Devices",
        "CDMG13008L-02",
        "micro dynamic speaker 13 mm, 8 ohm, 0.2 W: the voice (on leads to the PicoBlade plug)",
        "https://www.cuidevices.com/ (CDMG13008L-02 sheet, 2006; copy at dtsheet.com 737918)",
        figures={
            "r": Figure(8.0, "ohm", "CUI CDMG13008L-02 sheet: 8 ohm +-15 % at 1.5 kHz, 1 V"),
            "spl_1w_1m": Figure(
                75.0, "dB", "CUI CDMG13008L-02 sheet: 75 dB +-3 dB at 1 W, 1 m (1.5..3 kHz)"
            ),
            "p_nom": Figure(0.2, "W", "CUI CDMG13008L-02 sheet: nominal input 0.2 W"),
            "p_max": Figure(0.4, "W", "CUI CDMG13008L-02 sheet: handling capacity 0.4 W"),
            "f0": Figure(1050.0, "Hz", "CUI CDMG13008L-02 sheet: resonance 1050 Hz +-20 %"),
        },
    ),  # fmt: skip
    # --- the scan drivers on the controller ---------------------------------------------------
    "mux": Spec(
        "U",
        "74xx",
        "74HC4051",
        "Package_SO:SOIC-16_3.9x9.9mm_P1.27mm",
        "74HC4051",
        "Nexperia",
        "74HC4051D,653",
        "8:1 analog mux: a column group to an ADC input",
        "https://assets.nexperia.com/documents/data-sheet/74HC_HCT4051.pdf",
        figures={
            "r_on_4v5": Figure(
                180.0,
                "ohm",
                "Nexperia 74HC_HCT4051 Rev 9 Table 6: R_ON(peak) max at VCC 4.5 V, "
                "25 °C (100 typ.)",
            ),
            "r_on": Figure(
                360.0,
                "ohm",
                "at VCC 3.3 V not specified (Nexperia: 2.0/4.5/6.0 V; 150 typ. at "
                "the rails at 2.0 V): taken as 2x the 4.5 V R_ON(peak) max",
                True,
            ),
            "c_common": Figure(
                130e-12,
                "F",
                "Motorola MC74HC4051 datasheet: common O/I capacitance max, all "
                "switches off (Nexperia's HCT table: 25 pF typ.)",
            ),
            "c_switch": Figure(
                35e-12, "F", "Motorola MC74HC4051 datasheet: analog I/O capacitance max"
            ),
            "t_select": Figure(
                465e-9,
                "s",
                "Motorola MC74HC4051 datasheet: channel select to analog output, max "
                "at VCC 2.0 V, <= 85 °C, CL 50 pF: a bound at 3.3 V (93 ns at 4.5 V)",
            ),
            "i_q": Figure(8e-6, "A", "Philips 74HC4051 datasheet: ICC max at 6.0 V, 25 °C"),
        },
    ),  # fmt: skip
    "dec238": Spec(
        "U",
        "74xx",
        "74HC238",
        "Package_SO:SOIC-16_3.9x9.9mm_P1.27mm",
        "74HC238",
        "Nexperia",
        "74HC238D,653",
        "3-to-8 decoder, active-high outputs: row enables",
        "https://assets.nexperia.com/documents/data-sheet/74HC_HCT238.pdf",
        figures={
            "t_pd": Figure(
                125e-9, "s", "ON Semi MC74HC238A datasheet: A to Y tpd max at VCC 3.0 V, <= 85 °C"
            ),
            "i_q": Figure(8e-6, "A", "NXP 74HC238 datasheet: ICC max at 6.0 V, 25 °C"),
            "i_oh": Figure(
                2.4e-3, "A", "ON Semi MC74HC238A datasheet: VOH >= 2.48 V at 2.4 mA, VCC 3.0 V"
            ),
        },
    ),  # fmt: skip
    "dec138": Spec(
        "U",
        "74xx",
        "74LS138",
        "Package_SO:SOIC-16_3.9x9.9mm_P1.27mm",
        "74HC138",
        "Nexperia",
        "74HC138D,653",
        "3-to-8 decoder, active-low outputs: row FET gates",
        "https://assets.nexperia.com/documents/data-sheet/74HC_HCT138.pdf",
        figures={
            "t_pd": Figure(
                125e-9,
                "s",
                "the 74HC238's 3.0 V figure (MC74HC238A): the 74HC138's HC column "
                "was not found (74HCT138: 35 ns max at 4.5 V)",
                True,
            ),
            "i_q": Figure(8e-6, "A", "NXP 74HC138-Q100 datasheet: ICC max at 6.0 V, 25 °C"),
        },
    ),  # fmt: skip
    "strip_header": Spec(
        "J",
        "Connector_Generic",
        "Conn_02x20_Odd_Even",
        "Connector_IDC:IDC-Header_2x20_P2.54mm_Vertical",
        "STRIP",
        "Wurth Elektronik",
        "61204021621",
        "40-way box header: the sensor strips' bus (19 rows, 19 columns, 3V3, GND)",
    ),  # fmt: skip
    # --- a sensor strip (one board line of 19 points) -----------------------------------------
    "tmag5253": Spec(
        "H",
        None,
        "TMAG5253",
        TMAG_FOOTPRINT,
        "TMAG5253BA3",
        "Texas Instruments",
        "TMAG5253BA3IQDMRR",
        "linear Hall sensor +-80 mT with enable; output Hi-Z when disabled (variant A)",
        "https://www.ti.com/lit/ds/symlink/tmag5253.pdf",
        pins=(
            (1, "VCC", PWR_IN),
            (2, "GND", PWR_IN),
            (3, "EN", IN),
            (4, "OUT", OPEN),
            (5, "EP", PASSIVE),
        ),
        figures={
            # Figures from TI's datasheet as quoted by antwang0/VGACorne docs/sensors.md (and
            # Signaloid, MikroE): the PDF's §6.5/§6.6 were not retrieved, hence verify.
            "i_on": Figure(2.6e-3, "A", "TMAG5253 datasheet §6.5: ICC typ. (BA3, 3.3 V)", True),
            "i_on_max": Figure(5e-3, "A", "TMAG5253 datasheet §6.5: ICC max (BA3, 3.3 V)", True),
            "i_off": Figure(8e-9, "A", "TMAG5253 datasheet: ICC disabled", True),
            "t_on": Figure(25e-6, "s", "TI SLYA068A §2.1 Power Cycling: power-on < 25 us"),
            "sensitivity": Figure(
                15.0, "V/T", "TMAG5253 datasheet §6.6: 15 mV/mT +-15 % (BA3, 3.3 V)", True
            ),
            "sensitivity_tol": Figure(0.15, "", "TMAG5253 datasheet §6.6: +-15 %", True),
            "range": Figure(80e-3, "T", "TMAG5253 datasheet §6.6: +-80 mT (BA3)", True),
            "c_load_max": Figure(1e-9, "F", "TMAG5253 datasheet: output load <= 1 nF", True),
            "v_supply": Figure(3.3, "V", "the design: the sensors run from the 3V3 rail"),
        },
    ),  # fmt: skip
    "ss39et": Spec(
        "H",
        None,
        "SS39ET",
        "Package_TO_SOT_SMD:SOT-23",
        "SS39ET",
        "Honeywell",
        "SS39ET",
        "linear Hall sensor (SS49E in SOT-23), no enable: powered per line by a P-FET (variant B)",
        "https://prod-edam.honeywell.com/content/dam/honeywell-edam/sps/siot/en-us/products/"
        "sensors/magnetic-sensors/linear-and-angle-sensor-ics/common/documents/"
        "sps-siot-ss39et-ss49e-ss59et-product-sheet-005850-2-en-ciid-50359.pdf",
        # OUT as tri-state: 19 sensors share a column and only the powered line's drives it
        # (an unpowered 49E output loading the column is on hardware/README.md's list to verify).
        pins=((1, "VS", PWR_IN), (2, "GND", PWR_IN), (3, "OUT", OPEN)),
        figures={
            "i_on": Figure(6e-3, "A", "SS39ET/SS49E datasheet: supply current typ. 6 mA at 5 V"),
            "v_min": Figure(2.7, "V", "SS39ET/SS49E datasheet: supply 2.7..6.5 V"),
            "v_max": Figure(6.5, "V", "SS39ET/SS49E datasheet: supply 2.7..6.5 V"),
            "sensitivity_5v": Figure(
                18.0, "V/T", "research §1.1: 1.4-1.8 mV/G at 5 V (upper figure)", True
            ),
            "sensitivity_5v_min": Figure(
                14.0, "V/T", "research §1.1: 1.4-1.8 mV/G at 5 V (lower figure)", True
            ),
            "i_sink": Figure(
                65e-6,
                "A",
                "49E clones: ~65 uA pull-down, a weak sink (VGACorne notes, marked "
                "unconfirmed there)",
                True,
            ),
            "rail_margin": Figure(
                1.0, "V", "49E parts: the output stays ~1 V from each rail (VGACorne notes)", True
            ),
            "t_on": Figure(1e-3, "s", "not specified; Saiboard waits 1 ms (research §3)", True),
            "v_supply": Figure(3.3, "V", "the design: the sensors run from the 3V3 rail"),
        },
    ),  # fmt: skip
    "pfet": Spec(
        "Q",
        "Transistor_FET",
        "AO3401A",
        "Package_TO_SOT_SMD:SOT-23",
        "AO3401A",
        "Alpha & Omega",
        "AO3401A",
        "P-MOSFET: a strip's sensor power (variant B)",
        figures={
            "r_on": Figure(0.085, "ohm", "AOS AO3401A Rev 3: RDS(on) max at VGS -2.5 V, 25 °C"),
            "vgs_rated": Figure(2.5, "V", "AOS AO3401A Rev 3: the |VGS| of that RDS(on) figure"),
            "vgs_th_max": Figure(1.3, "V", "AOS AO3401A Rev 3: |VGS(th)| max"),
        },
    ),  # fmt: skip
    "c_sensor": capacitor("100nF", "GRM155R71C104KA88D"),
}

# Passives by role (value, Yageo/Murata part number).
RES = {
    "27R": "RC0402FR-0727RL",
    "200R": "RC0402FR-07200RL",
    "220R": "RC0402FR-07220RL",
    "470R": "RC0402FR-07470RL",
    "1k": "RC0402FR-071KL",
    "2k": "RC0402FR-072KL",
    "4k7": "RC0402FR-074K7L",
    "5k1": "RC0402FR-075K1L",
    "5k6": "RC0402FR-075K6L",
    "10k": "RC0402FR-0710KL",
    "15k": "RC0402FR-0715KL",
    "100k": "RC0402FR-07100KL",
    "200k": "RC0402FR-07200KL",
    "1M": "RC0402FR-071ML",
}
CAP = {
    "15pF": ("GRM1555C1H150JA01D", "C0G", C0402, 50),
    "33nF": ("GRM155R71C333KA01D", "X7R", C0402, 16),
    "100nF": ("GRM155R71C104KA88D", "X7R", C0402, 16),
    "1uF": ("GRM155R61A105KE15D", "X5R", C0402, 10),
    "4.7uF": ("GRM188R61A475KE15D", "X5R", "Capacitor_SMD:C_0603_1608Metric", 10),
    "10uF": ("GRM21BR61A106KE19L", "X5R", C0805, 10),
}
for _v, _mpn in RES.items():
    PARTS["r" + _v] = resistor(_v, _mpn)
for _v, (_mpn, _d, _fp, _volts) in CAP.items():
    PARTS["c" + _v] = capacitor(_v, _mpn, _d, _fp, _volts)

# What the BOM lists beside the schematic's parts: (item, qty for a 19x19 board, manufacturer,
# part number, description). Quantities are exact; ``STRIPS`` is the number of sensor strips.
STRIPS = 19
BLACK_STONES = 181
WHITE_STONES = 181  # 180 for play + 1: calibration pass 2 needs 181 whites (README §6)


def kit(n_strips=STRIPS):
    """The items a maker orders that are not on a schematic: (item, qty, maker, mpn, what)."""
    stones = BLACK_STONES + WHITE_STONES
    return [
        ("PCB controller", 1, "any PCB fab", "tengen-controller", "2-layer, 1.6 mm"),
        ("PCB strip", n_strips, "any PCB fab", "tengen-strip", "2-layer, 1.6 mm, one line"),
        ("ribbon cable", n_strips, "3M", "3365/40", "40-way flat cable, 1.27 mm, 60 mm a link"),
        ("IDC socket", 2 * n_strips, "3M", "89140-0101", "40-way IDC socket for the ribbon"),
        ("face module", 2, "generic", "HT1621 6-digit LCD module",
         "2.4 in 6-digit 7-segment TN LCD on an HT1621, 6-pin header; backlight left off"),
        ("battery", 1, "Adafruit", "2011", "1S LiPo 3.7 V 2000 mAh, JST PH, protected"),
        ("coin cell", 1, "Panasonic", "CR1220", "the RTC's backup cell"),
        ("speaker", 1, PARTS["speaker"].manufacturer, PARTS["speaker"].mpn,
         "13 mm 8 ohm micro speaker, 0.2 W, 75 dB/W at 1 m, on leads to the plug below"),
        ("speaker plug", 1, "Molex", "51021-0200",
         "PicoBlade 2-way housing and 2 crimp terminals 50079-8000, for the speaker's leads"),
        ("magnet", stones, "supermagnete", "S-06-03-N",
         "6x3 mm NdFeB disc, axially magnetised: black North down, white South down"),
        ("stone black", BLACK_STONES, "any", "22 mm Go stone", "drilled 6.1x3.1 mm for a magnet"),
        ("stone white", WHITE_STONES, "any", "22 mm Go stone", "drilled 6.1x3.1 mm for a magnet"),
    ]  # fmt: skip
